import type { CoreDeps } from "@als/core";
import { evaluations } from "@als/db";
import { startEvaluateSessionWorkflow } from "@als/workflows/start-evaluate-session";
import type { Client } from "@temporalio/client";

/**
 * Starts the evaluation timer of every session that waits to be graded and may have none: the
 * publish committed but could not reach Temporal, or an earlier worker had no provider and ended the
 * run. One already running is left alone. Returns how many sessions wait.
 */
export async function scheduleWaitingEvaluations(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const sessions = await evaluations.findWaitingSessions(deps.db);
  for (const { sessionId, ...scope } of sessions) await startEvaluateSessionWorkflow(client, taskQueue, scope, sessionId);
  return sessions.length;
}
