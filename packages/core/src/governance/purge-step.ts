import { type PurgeOperationRecord, type PurgePhase, type PurgeProgress, purgeOperations, type Scope, type Sql, subjectData } from "@als/db";
import { VectorIndexUnavailableError } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { crashAt } from "../durable/crash-at.ts";
import { settleFailure } from "../durable/failure-policy.ts";
import { LeaseLost, outcomeOfRun, type StepOutcome } from "../durable/step-outcome.ts";
import { drainVectorOutbox } from "../vector-sync/sync-vector-index.ts";

/** Long enough for the largest single delete; a step extends it as it commits. */
export const PURGE_LEASE_SECONDS = 300;
/** How soon the check looks again at vector index changes not yet pushed (by another process, or to an index that could not be reached). */
const VECTOR_WAIT_SECONDS = 5;
const DRAIN_BATCH = 500;

/** The final check found rows of the subject the deletes did not reach: a table the erasure does not cover. */
class ResidualSubjectData extends Error {}

/** The vector index has not yet taken the deletes (another process drains it, or it cannot be reached now). */
class VectorIndexPending extends Error {}

/**
 * One attempt at an erasure: takes it under its lease and works from its phase to the end. The
 * deletes run one ERASURE_STEPS entry per transaction, each recorded as done in its own
 * transaction; then the final empty check (the vector index has taken the deletes, and no table of
 * the catalog holds the subject); then, in one transaction, the audit row, the source suppression
 * and the end of the operation, which forgets the raw id and lifts the barrier. Safe to repeat
 * after a crash at any point: the next attempt goes on from the phase and steps committed.
 */
export async function runPurgeStep(
  deps: CoreDeps,
  scope: Scope,
  purgeId: string,
  leaseToken: string = crypto.randomUUID(),
  stopping?: AbortSignal,
): Promise<StepOutcome> {
  const now = deps.now();
  const claimed = await purgeOperations.claimPurge(deps.db, purgeId, leaseToken, now, PURGE_LEASE_SECONDS);
  if (!claimed) return outcomeOfRun(await purgeOperations.findPurge(deps.db, scope, purgeId), now);
  const purge = new PurgeCursor(deps, claimed, leaseToken);
  try {
    crashAt(deps, "purge.after_barrier");
    if (purge.phase === "delete") await deleteSubjectRows(deps, scope, purge, stopping);
    if (purge.phase === "check") await checkNothingRemains(deps, scope, purge);
    crashAt(deps, "purge.before_audit");
    if (purge.phase === "audit") await auditAndComplete(deps, scope, purge);
    return { next: "done" };
  } catch (error) {
    if (error instanceof LeaseLost) return outcomeOfRun(await purgeOperations.findPurge(deps.db, scope, purgeId), deps.now());
    if (stopping?.aborted) {
      await purgeOperations.releasePurge(deps.db, purgeId, leaseToken, deps.now());
      return { next: "busy" };
    }
    if (error instanceof ResidualSubjectData) {
      await purgeOperations.failPurge(deps.db, purgeId, leaseToken, { code: "residual_subject_data", detail: error.message }, deps.now());
      return { next: "done", unexpected: `erasure ${purgeId} left rows behind: ${error.message}` };
    }
    if (error instanceof VectorIndexPending) {
      const retryAt = deps.now() + VECTOR_WAIT_SECONDS;
      await purgeOperations.retryPurge(deps.db, purgeId, leaseToken, { errorCode: "vector_index_pending", detail: error.message, retryAt }, deps.now());
      return { next: "retry", at: retryAt };
    }
    const { code, retryAt, unexpected } = settleFailure(error, claimed.attempts, deps.now());
    if (retryAt !== null) {
      await purgeOperations.retryPurge(deps.db, purgeId, leaseToken, { errorCode: code, detail: null, retryAt }, deps.now());
      return { next: "retry", at: retryAt, unexpected };
    }
    await purgeOperations.failPurge(deps.db, purgeId, leaseToken, { code, detail: null }, deps.now());
    return { next: "done", unexpected };
  }
}

/** The operation as its lease holder last committed it; `commit` moves it in the transaction of a step's work. */
class PurgeCursor {
  phase: PurgePhase;
  progress: PurgeProgress;
  readonly userId: string;

  constructor(
    private readonly deps: CoreDeps,
    readonly operation: PurgeOperationRecord,
    readonly leaseToken: string,
  ) {
    this.phase = operation.phase;
    this.progress = operation.progress;
    this.userId = operation.subject_user_id!;
  }

  /** Runs `work` and records the phase and progress it leads to, in one transaction fenced by the lease. */
  async commit(work: (tx: Sql) => Promise<{ phase: PurgePhase; progress: PurgeProgress }>): Promise<void> {
    const to = await this.deps.db.transaction(async (tx) => {
      const next = await work(tx);
      const held = await purgeOperations.advancePurge(tx, this.operation.purge_id, this.leaseToken, next, this.deps.now(), PURGE_LEASE_SECONDS);
      if (!held) throw new LeaseLost();
      return next;
    });
    this.phase = to.phase;
    this.progress = to.progress;
  }
}

async function deleteSubjectRows(deps: CoreDeps, scope: Scope, purge: PurgeCursor, stopping: AbortSignal | undefined): Promise<void> {
  for (const step of subjectData.ERASURE_STEPS) {
    if (purge.progress.done.includes(step.name)) continue;
    if (stopping?.aborted) throw stopping.reason;
    await purge.commit(async (tx) => {
      const removed = await step.erase(tx, scope, purge.userId);
      const { done, counts } = purge.progress;
      return {
        phase: "delete",
        progress: { ...purge.progress, done: [...done, step.name], counts: { ...counts, [step.name]: (counts[step.name] ?? 0) + removed } },
      };
    });
    crashAt(deps, `purge.deleted_${step.name}`);
  }
  // The deletes noted their rows in the vector outbox (when an index is kept): the check waits for
  // every change up to here to reach the index.
  const mark = await subjectData.latestOutboxChange(deps.db);
  await purge.commit(async () => ({ phase: "check", progress: { ...purge.progress, outbox_mark: mark } }));
}

async function checkNothingRemains(deps: CoreDeps, scope: Scope, purge: PurgeCursor): Promise<void> {
  const mark = purge.progress.outbox_mark ?? 0;
  // An in-process index drains itself: it takes in the deletes and saves itself, so no save on disk keeps the subject's points.
  if (deps.vectorIndex && (deps.vectorIndex.drain || (await subjectData.countUnpushedChanges(deps.db, scope, mark)) > 0)) {
    try {
      await drainVectorOutbox({ db: deps.db, vectorIndex: deps.vectorIndex }, DRAIN_BATCH);
    } catch (error) {
      // A Qdrant restarting or out of reach holds the erasure at this check until it takes the
      // deletes (the count below), however long that is: the retries of a failure would run out
      // and fail an erasure that only waits for the index.
      if (!(error instanceof VectorIndexUnavailableError)) throw error;
    }
  }
  const unpushed = await subjectData.countUnpushedChanges(deps.db, scope, mark);
  if (unpushed > 0) throw new VectorIndexPending(`${unpushed} changes of the project are not yet in the vector index`);
  const residue = await subjectData.findSubjectResidue(deps.db, scope, purge.userId);
  if (Object.keys(residue).length > 0) throw new ResidualSubjectData(`rows remain in ${Object.keys(residue).join(", ")}`);
  await purge.commit(async () => ({ phase: "audit", progress: purge.progress }));
}

async function auditAndComplete(deps: CoreDeps, scope: Scope, purge: PurgeCursor): Promise<void> {
  const { operation } = purge;
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    await purgeOperations.writeAudit(
      tx,
      scope,
      {
        action: "erase_user",
        subjectRef: operation.subject_ref,
        requestRef: operation.request_ref,
        actorRef: operation.actor_ref,
        purgeId: operation.purge_id,
        counts: purge.progress.counts,
      },
      now,
    );
    await purgeOperations.suppressSubject(tx, scope, operation.subject_ref, now);
    if (!(await purgeOperations.completePurge(tx, operation.purge_id, purge.leaseToken, purge.progress.counts, now))) throw new LeaseLost();
  });
}
