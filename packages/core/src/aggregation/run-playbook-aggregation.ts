import { aggregation, type OperationRecord, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { runUntilDone } from "../durable/run-until-done.ts";
import { runAggregationStep } from "./aggregation-step.ts";
import { startAggregationOperation } from "./operations.ts";

/**
 * The synchronous aggregation: an operation like any other (same receipt, same rules), run here
 * when the caller waits (see runUntilDone); it answers with the receipt as it stands.
 */
export async function runPlaybookAggregation(deps: CoreDeps, scope: Scope, agentVersion: string, wait: boolean): Promise<OperationRecord> {
  const started = await startAggregationOperation(deps, scope, { request_id: `run:${crypto.randomUUID()}`, agent_version: agentVersion });
  if (!wait) return started;
  await runUntilDone(() => runAggregationStep(deps, scope, started.operation_id), deps.now);
  return (await aggregation.findOperation(deps.db, scope, started.operation_id))!;
}
