import type { CoreDeps } from "@als/core";
import { evaluationJobs, sessionTimers } from "@als/db";
import { startEvaluateSessionWorkflow } from "@als/workflows/start-evaluate-session";
import { startInferSessionOutcomeWorkflow } from "@als/workflows/start-infer-session-outcome";
import { startRegenerateEvaluationsWorkflow } from "@als/workflows/start-regenerate-evaluations";
import type { Client } from "@temporalio/client";

/**
 * Starts the evaluation timer of every session that waits to be graded and may have none: the
 * publish committed but could not reach Temporal, or an earlier worker had no provider and ended the
 * run. One already running is left alone. Returns how many sessions wait.
 */
export async function scheduleWaitingEvaluations(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const sessions = await sessionTimers.findWaitingTimers(deps.db, "evaluation_sessions");
  for (const { sessionId, ...scope } of sessions) await startEvaluateSessionWorkflow(client, taskQueue, scope, sessionId);
  return sessions.length;
}

/** Starts (or wakes) the outcome inference timer of every session that waits for one, as for evaluations. Returns how many sessions wait. */
export async function scheduleWaitingInferences(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const sessions = await sessionTimers.findWaitingTimers(deps.db, "outcome_inferences");
  for (const { sessionId, ...scope } of sessions) await startInferSessionOutcomeWorkflow(client, taskQueue, scope, sessionId);
  return sessions.length;
}

/** Starts the workflow of every regenerate job that should be running and may have none. Returns how many. */
export async function scheduleUnfinishedEvaluationJobs(client: Client, deps: CoreDeps, taskQueue: string): Promise<number> {
  const jobs = await evaluationJobs.findRunnableJobs(deps.db, deps.now());
  for (const { jobId, ...scope } of jobs) await startRegenerateEvaluationsWorkflow(client, taskQueue, scope, jobId);
  return jobs.length;
}
