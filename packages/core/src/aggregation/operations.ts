import { AppError } from "@als/contract";
import { aggregation, type OperationRecord, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Starts an aggregation operation of an agent version and returns its receipt, without waiting for
 * it. Idempotent by request id: the same request id and agent version return the same operation,
 * also after it finished; the same request id with another agent version is a 409; so is a new
 * request id while the agent version has an unfinished operation.
 */
export async function startAggregationOperation(
  deps: CoreDeps,
  scope: Scope,
  request: { request_id: string; agent_version: string },
): Promise<OperationRecord> {
  const same = await existingFor(deps, scope, request);
  if (same) return same;
  const created = await aggregation.insertOperation(
    deps.db,
    scope,
    { operationId: crypto.randomUUID(), requestId: request.request_id, agentVersion: request.agent_version },
    deps.now(),
  );
  if (created) {
    await deps.orchestrator?.schedule("aggregation", scope, created.operation_id);
    return created;
  }
  // Refused by a unique rule: a concurrent start of the same request, or another unfinished operation.
  const raced = await existingFor(deps, scope, request);
  if (raced) return raced;
  throw new AppError("conflict", `an aggregation operation for agent_version '${request.agent_version}' is unfinished; wait for it or reuse its request_id`);
}

async function existingFor(deps: CoreDeps, scope: Scope, request: { request_id: string; agent_version: string }): Promise<OperationRecord | undefined> {
  const existing = await aggregation.findOperationByRequest(deps.db, scope, request.request_id);
  if (existing && existing.agent_version !== request.agent_version) {
    throw new AppError("conflict", `request_id '${request.request_id}' was used for agent_version '${existing.agent_version}'`);
  }
  return existing;
}

/** An operation's receipt; 404 for an unknown id or another project's. */
export async function getAggregationOperation(deps: CoreDeps, scope: Scope, operationId: string): Promise<OperationRecord> {
  const found = await aggregation.findOperation(deps.db, scope, operationId);
  if (!found) throw AppError.notFound(`aggregation operation '${operationId}'`);
  return found;
}
