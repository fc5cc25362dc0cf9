import { LlmOutputError, LlmStallError, LlmUnavailableError } from "@als/ai";
import { AppError, type CancelRegenerateResponse, type RegenerateRequest, type RegenerateStartResponse, type RegenerateStatusResponse } from "@als/contract";
import { type EvaluationJobRecord, type EvaluationJobStatus, evaluationJobs, type Scope } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { crashAt } from "../durable/crash-at.ts";
import { LeaseLost, outcomeOfRun, type StepOutcome } from "../durable/step-outcome.ts";
import { judgeWholeSession, saveJudgement } from "./grade-session.ts";

/** Longer than one session's judges take; the lease is renewed with every session graded. */
export const EVALUATION_JOB_LEASE_SECONDS = 300;
const BATCH = 20;
const STALL_RETRY_SECONDS = 300;

/**
 * Starts replaying the judges over the sessions whose first request is in the closed window
 * [from_ts, to_ts): a durable job (the reconciler embedded, a Temporal workflow in full mode) whose
 * id the answer gives, with the number of sessions it grades. 422 when the window is not closed yet.
 */
export async function startRegenerate(deps: CoreDeps, scope: Scope, input: RegenerateRequest): Promise<z.input<typeof RegenerateStartResponse>> {
  const now = deps.now();
  if (input.to_ts > now) {
    throw AppError.validation([{ loc: ["body", "to_ts"], msg: "must not be in the future: regenerate replays a closed window", type: "value_error" }]);
  }
  const jobId = crypto.randomUUID();
  const total = await evaluationJobs.countSessionsStartedIn(deps.db, scope, input.from_ts, input.to_ts);
  await evaluationJobs.insertJob(deps.db, scope, { jobId, from: input.from_ts, to: input.to_ts, evaluationName: input.evaluation_name ?? null, total }, now);
  await deps.orchestrator?.schedule("evaluationJob", scope, jobId);
  return { job_id: jobId, total };
}

/** A stored job status as the contract names it: queued, running and retrying jobs are running. */
function statusOfJob(status: EvaluationJobStatus): z.infer<typeof RegenerateStatusResponse>["status"] {
  if (status === "succeeded") return "completed";
  if (status === "failed") return "error";
  if (status === "cancelled") return "cancelled";
  return "running";
}

/** Where a regenerate job stands: progress, and the sessions it could not grade with a safe reason. 404 when unknown here. */
export async function regenerateStatus(deps: CoreDeps, scope: Scope, jobId: string): Promise<z.input<typeof RegenerateStatusResponse>> {
  const job = await evaluationJobs.readJob(deps.db, scope, jobId);
  if (!job) throw AppError.notFound(`regenerate job ${jobId}`);
  return {
    job_id: job.job_id,
    status: statusOfJob(job.status),
    total: job.total,
    completed: job.completed,
    failed: job.failed,
    failures: job.failures,
    error_code: job.error_code,
    started_at: job.created_at,
    finished_at: job.finished_at,
  };
}

/**
 * Cancels a regenerate job that has not finished: recorded before the answer, so the worker grading
 * it (in this process or another, now or after a restart) saves nothing more and stops. A finished
 * job is left as it was and its status answered. 404 when unknown here.
 */
export async function cancelRegenerate(deps: CoreDeps, scope: Scope, jobId: string): Promise<z.input<typeof CancelRegenerateResponse>> {
  const job = await evaluationJobs.cancelJob(deps.db, scope, jobId, deps.now());
  if (!job) throw AppError.notFound(`regenerate job ${jobId}`);
  const status = statusOfJob(job.status);
  // cancelJob changes every unfinished job, so what it answers is never still running.
  return { job_id: job.job_id, status: status === "running" ? "cancelled" : status };
}

/**
 * One idempotent attempt at a regenerate job: under the job's lease, it grades the window's sessions
 * in session_id order after the job's cursor, each saved (origin regenerate) together with the
 * cursor's move, so a restart goes on after the last session saved and none is graded twice. A
 * session the judges cannot grade is listed among the failures and the job goes on; a provider that
 * refuses our credentials or money puts the job back to retry; no provider at all ends it in error.
 */
export async function runEvaluationJobStep(deps: CoreDeps, scope: Scope, jobId: string, leaseToken: string = crypto.randomUUID()): Promise<StepOutcome> {
  const claimed = await evaluationJobs.claimJob(deps.db, jobId, leaseToken, deps.now(), EVALUATION_JOB_LEASE_SECONDS);
  if (!claimed) return outcomeOfRun(await evaluationJobs.readJob(deps.db, scope, jobId), deps.now());
  if (!deps.llm) {
    await evaluationJobs.failJob(deps.db, jobId, leaseToken, "no_llm_provider", deps.now());
    return { next: "done" };
  }
  const llmDeps = { ...deps, llm: deps.llm };
  let job: EvaluationJobRecord = claimed;
  let after = job.after_session_id;
  try {
    for (;;) {
      const batch = await evaluationJobs.sessionsStartedIn(deps.db, scope, { from: job.from_ts, to: job.to_ts }, after, BATCH);
      if (batch.length === 0) break;
      for (const sessionId of batch) {
        let failure: string | null = null;
        let judgement: Awaited<ReturnType<typeof judgeWholeSession>> = null;
        try {
          judgement = await judgeWholeSession(llmDeps, scope, sessionId, { success: true, learnings: true, shadow: true });
        } catch (error) {
          if (error instanceof LlmStallError) throw error;
          failure = error instanceof LlmOutputError ? "invalid_model_output" : error instanceof LlmUnavailableError ? "provider_unavailable" : "internal_error";
        }
        await deps.db.transaction(async (tx) => {
          const now = deps.now();
          const moved = await evaluationJobs.recordJobProgress(
            tx,
            jobId,
            leaseToken,
            { sessionId, failure, leaseUntil: now + EVALUATION_JOB_LEASE_SECONDS },
            now,
          );
          if (!moved) throw new LeaseLost();
          if (judgement && failure === null)
            await saveJudgement(tx, scope, judgement, { kind: "regenerate", evaluationName: job.evaluation_name ?? undefined }, now);
        });
        crashAt(deps, "regenerate.after_session");
        after = sessionId;
      }
    }
    job = (await evaluationJobs.readJob(deps.db, scope, jobId)) ?? job;
    await evaluationJobs.completeJob(deps.db, jobId, leaseToken, { completed: job.completed, failed: job.failed }, deps.now());
    return { next: "done" };
  } catch (error) {
    // Lost to another worker, or cancelled: the stored job says which.
    if (error instanceof LeaseLost) return outcomeOfRun(await evaluationJobs.readJob(deps.db, scope, jobId), deps.now());
    if (error instanceof LlmStallError) {
      const at = deps.now() + STALL_RETRY_SECONDS;
      await evaluationJobs.retryJob(deps.db, jobId, leaseToken, { errorCode: `provider_${error.kind}`, retryAt: at }, deps.now());
      return { next: "retry", at };
    }
    // Storage trouble or a fault of ours: the job goes back to the queue, from its cursor.
    await evaluationJobs.releaseJob(deps.db, jobId, leaseToken, deps.now()).catch(() => undefined);
    return { next: "busy", unexpected: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
