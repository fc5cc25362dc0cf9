import { aggregation, type OperationRecord, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { runAggregationStep } from "./aggregation-step.ts";
import { startAggregationOperation } from "./operations.ts";

/** How long the synchronous endpoint keeps at it before answering with the receipt as it stands. */
const SYNCHRONOUS_BUDGET_MS = 50_000;
const BUSY_POLL_MS = 100;

/**
 * The synchronous aggregation: an operation like any other (same receipt, same rules), run here
 * until it finishes when the caller waits. The orchestrator may take it up at the same moment;
 * the lease lets only one of them run it, and the other waits for the result.
 */
export async function runPlaybookAggregation(deps: CoreDeps, scope: Scope, agentVersion: string, wait: boolean): Promise<OperationRecord> {
  const started = await startAggregationOperation(deps, scope, { request_id: `run:${crypto.randomUUID()}`, agent_version: agentVersion });
  if (!wait) return started;
  const giveUpAt = performance.now() + SYNCHRONOUS_BUDGET_MS;
  while (performance.now() < giveUpAt) {
    const outcome = await runAggregationStep(deps, scope, started.operation_id);
    if (outcome.next === "done") break;
    const pauseMs = outcome.next === "retry" ? Math.max(0, outcome.at - deps.now()) * 1000 : BUSY_POLL_MS;
    if (performance.now() + pauseMs > giveUpAt) break;
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return (await aggregation.findOperation(deps.db, scope, started.operation_id))!;
}
