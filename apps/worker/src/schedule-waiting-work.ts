import { type CoreDeps, DURABLE_WORK } from "@als/core";
import { scheduleWorkflow } from "@als/workflows/schedule-through-temporal";
import type { Client } from "@temporalio/client";
import type { Logger } from "@temporalio/worker";

/**
 * A worker's recovery at start-up: every item of every kind that may lack its workflow (findWaiting:
 * the API committed it but could not reach Temporal, a run ended without a provider) gets it. A
 * workflow already running is left alone, or only signalled.
 */
export async function scheduleWaitingWork(client: Client, deps: CoreDeps, taskQueue: string, log: Logger): Promise<void> {
  for (const work of DURABLE_WORK) {
    const waiting = await work.findWaiting(deps);
    for (const { scope, id } of waiting) await scheduleWorkflow(client, taskQueue, work, scope, id);
    log.info("durable work scheduled", { kind: work.kind, items: waiting.length });
  }
}
