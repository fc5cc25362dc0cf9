import {
  aggregation,
  dataSourceCollections,
  dataSourceSamples,
  documentExpansion,
  evaluationJobs,
  generationRuns,
  learning,
  physicalRemoval,
  plannerStatistics,
  purgeOperations,
  type Scope,
  type SessionTimerTable,
  sessionTimers,
  staleEmbeddings,
} from "@als/db";
import { runAggregationStep } from "./aggregation/aggregation-step.ts";
import type { BackgroundLoop } from "./background-loop.ts";
import { runCollectionStep } from "./data-sources/collection/collection-step.ts";
import { runSampleStep } from "./data-sources/sample-step.ts";
import { type CoreDeps, DEFAULT_LEARNING_CONCURRENCY } from "./deps.ts";
import type { DurableKind, Orchestrator } from "./durable/orchestrator.ts";
import type { SessionTimerOutcome } from "./durable/session-timer-step.ts";
import { runEvaluationStep } from "./evaluation/evaluation-step.ts";
import { runEvaluationJobStep } from "./evaluation/regenerate.ts";
import { runGenerationStep } from "./generation/generation-step.ts";
import { removeErasedBytes } from "./governance/physical-removal-step.ts";
import { runPurgeStep } from "./governance/purge-step.ts";
import { type LearningStepOutcome, runLearningStep } from "./learning/learning-step.ts";
import { runOutcomeInferenceStep } from "./outcomes/infer-session-outcome.ts";
import { type ReembedProgress, reembedStaleRowsStep } from "./reembed-stale-rows.ts";
import { startDocumentExpansionLoop } from "./search/document-expansion-loop.ts";
import { startVectorSyncLoop, type VectorSyncLoop } from "./vector-sync/vector-sync-loop.ts";

const REEMBED_BATCH = 256;
/** Collection steps (pages) one pass runs for a collection before the pass ends and the next goes on. */
const COLLECTION_STEPS_PER_PASS = 20;
/** Sessions one pass takes per kind of session timer at most; the next pass (the wake-up timer's) takes the rest. */
const SESSION_TIMER_BATCH = 500;
/** How soon a user whose lease another step held is tried again. */
const BUSY_RETRY_SECONDS = 5;
/** How often sleeping users are checked against the clock. */
const WAKE_CHECK_MS = 30_000;
/**
 * PGlite runs no autovacuum, so the embedded database's planner statistics are kept here: once a
 * minute the tables that grew past their statistics are analyzed (as autovacuum would), and once an
 * hour the searched tables are, since the full-text arm tells common words from distinctive ones by
 * their statistics, which change without growth.
 */
const STATISTICS_CHECK_MS = 60 * 1000;
const ANALYZE_SEARCHED_EVERY_MS = 60 * 60 * 1000;
const SEARCHED_TABLES = ["profiles", "user_playbooks", "agent_playbooks", "interactions"];

type UserKey = string;
const keyOf = (scope: Scope, userId: string): UserKey => JSON.stringify([scope.orgId, scope.projectId, userId]);
const parseKey = (key: UserKey) => {
  const [orgId, projectId, userId] = JSON.parse(key) as [string, string, string];
  return { scope: { orgId, projectId }, userId };
};

/**
 * The embedded mode's orchestrator: it calls the same idempotent steps that Temporal workflows call
 * as activities in full mode, in this process. Its first pass re-embeds stale profiles and playbooks and picks up
 * every user with interactions not yet learned from (so a restart loses nothing); after that,
 * `wakeUser` queues a user whose stream moved, and sleeping users (a short window waiting for its
 * inactivity deadline, a retry's backoff) are woken when their time comes. Every pass also runs the
 * aggregation operations and erasures (purge operations) that are queued, due for a retry, or left
 * by a worker whose lease expired, and wakes the lane of generation runs, which runs them the same way, one at a time, beside the
 * passes: a rerun of every user can take long, and learning should not wait for it. With a vector
 * index configured, it also drains the vector outbox into it (see startVectorSyncLoop); with an LLM,
 * it expands the learnings of projects that enable document expansion (startDocumentExpansionLoop).
 */
export class Reconciler implements Orchestrator {
  private pass: Promise<void> | undefined;
  private again = false;
  private recovered = false;
  private generationLane: Promise<void> | undefined;
  private generationAgain = false;
  /** Aborted by stop(): a generation run in progress ends at its next commit and waits for the next start. */
  private readonly stopping = new AbortController();
  private readonly due = new Set<UserKey>();
  /** Lanes learning from due users; each takes one user at a time until none is due. */
  private readonly lanes = new Set<Promise<void>>();
  /**
   * Users a lane is learning from now. One queued again meanwhile stays queued until that lane is
   * done with them: another lane would only find their lease held and put them to sleep.
   */
  private readonly inLane = new Set<UserKey>();
  private readonly sleeping = new Map<UserKey, number>();
  private readonly timer: ReturnType<typeof setInterval>;
  /** Wakes a pass when the next physical removal of erased rows may start (see removeErasedBytes). */
  private physicalRemovalTimer: ReturnType<typeof setTimeout> | undefined;
  private statisticsCheckedAt = -Infinity;
  private searchedAnalyzedAt = -Infinity;
  /** Keeps the vector index (Qdrant) in step with the database, when one is configured. */
  private readonly vectorSync: VectorSyncLoop | undefined;
  private readonly documentExpansion: BackgroundLoop | undefined;

  constructor(
    private readonly deps: CoreDeps,
    private readonly onError: (error: unknown) => void,
  ) {
    this.timer = setInterval(() => this.poke(), WAKE_CHECK_MS);
    this.timer.unref?.();
    // An index with a drain of its own (the in-process graph) follows the record by itself.
    if (deps.vectorIndex && !deps.vectorIndex.drain) this.vectorSync = startVectorSyncLoop({ db: deps.db, vectorIndex: deps.vectorIndex }, onError);
    if (deps.llm) this.documentExpansion = startDocumentExpansionLoop({ ...deps, llm: deps.llm }, onError);
  }

  /** The orchestrator port: a user whose interaction stream moved takes a lane; any other kind of work wakes a pass. */
  schedule(kind: DurableKind, scope: Scope, id: string): void {
    if (kind === "learning") this.wakeUser(scope, id);
    else this.poke();
  }

  /** Queues learning for a user whose interaction stream moved. */
  wakeUser(scope: Scope, userId: string): void {
    this.due.add(keyOf(scope, userId));
    this.sleeping.delete(keyOf(scope, userId));
    // A user queued while a pass runs takes an idle lane now rather than waiting for the next pass.
    if (this.recovered) this.startLanes();
    this.poke();
  }

  /** Starts a pass, or asks the running pass to run once more when it ends. */
  poke(): void {
    if (this.pass) {
      this.again = true;
      return;
    }
    this.pass = this.run().finally(() => {
      this.pass = undefined;
      if (this.again) {
        this.again = false;
        this.poke();
      }
    });
  }

  /** Resolves when no pass or generation run is running and no user is queued (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pass || this.generationLane || this.lanes.size > 0) await (this.pass ?? this.generationLane ?? Promise.all(this.lanes));
    await this.vectorSync?.idle();
    await this.documentExpansion?.idle();
  }

  /** Stops the wake-up timer and generation runs at their next commit; a running pass still finishes (await idle()). */
  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.physicalRemovalTimer);
    this.stopping.abort();
    this.vectorSync?.stop();
    this.documentExpansion?.stop();
  }

  /** The embedded database's autovacuum analyze, at most once a minute (see STATISTICS_CHECK_MS). */
  private async refreshPlannerStatistics(): Promise<void> {
    const now = performance.now();
    if (now - this.statisticsCheckedAt < STATISTICS_CHECK_MS) return;
    this.statisticsCheckedAt = now;
    const grown = await plannerStatistics.tablesOutgrowingStatistics(this.deps.db);
    const searchedDue = now - this.searchedAnalyzedAt >= ANALYZE_SEARCHED_EVERY_MS;
    if (searchedDue) this.searchedAnalyzedAt = now;
    await plannerStatistics.analyzeTables(this.deps.db, [...new Set([...grown, ...(searchedDue ? SEARCHED_TABLES : [])])]);
  }

  private async run(): Promise<void> {
    try {
      if (!this.recovered) {
        // The embedded database belongs to this one process: a lease still held was held by this
        // process before it crashed. Its window is taken up again from the start; its aggregation
        // operation or generation run from what it committed.
        await learning.releaseAllUserLeases(this.deps.db);
        await aggregation.expireOperationLeases(this.deps.db, this.deps.now());
        await generationRuns.expireRunLeases(this.deps.db, this.deps.now());
        await purgeOperations.expirePurgeLeases(this.deps.db, this.deps.now());
        await physicalRemoval.expirePhysicalRemovalLease(this.deps.db);
        await dataSourceSamples.expireSampleLeases(this.deps.db, this.deps.now());
        await dataSourceCollections.expireCollectionLeases(this.deps.db, this.deps.now());
        await documentExpansion.releaseAllExpansionLeases(this.deps.db);
        await sessionTimers.releaseAllTimerLeases(this.deps.db, "evaluation_sessions");
        await sessionTimers.releaseAllTimerLeases(this.deps.db, "outcome_inferences");
        await evaluationJobs.expireJobLeases(this.deps.db, this.deps.now());
        await this.reembedStaleRows();
        for (const { userId, ...scope } of await learning.findUsersWithPendingLearning(this.deps.db)) this.due.add(keyOf(scope, userId));
        this.recovered = true;
      }
      if (this.deps.db.kind === "pglite") await this.refreshPlannerStatistics();
      const now = this.deps.now();
      for (const [key, until] of this.sleeping) {
        if (until <= now) {
          this.sleeping.delete(key);
          this.due.add(key);
        }
      }
      this.runGenerationLane();
      this.startLanes();
      const lanes = this.deps.learning?.concurrency ?? DEFAULT_LEARNING_CONCURRENCY;
      await Promise.all([
        this.lanesDrained(),
        this.runDueOperations(),
        this.runDuePurges().then(() => this.removeErasedBytes()),
        this.runDueEvaluations(lanes),
        this.runDueInferences(lanes),
        this.runDueEvaluationJobs(),
        this.runDueSamples(),
        this.runDueCollections(),
      ]);
    } catch (error) {
      this.onError(error);
    }
  }

  /** Each lane learns from one user at a time and mostly waits on the LLM: as many lanes as the provider takes calls. */
  private startLanes(): void {
    const limit = this.deps.learning?.concurrency ?? DEFAULT_LEARNING_CONCURRENCY;
    // A lane takes its first user synchronously, so a started lane leaves one user fewer to take.
    while (this.lanes.size < limit && this.nextDue() !== undefined) {
      const lane: Promise<void> = this.drainDueUsers().finally(() => this.lanes.delete(lane));
      this.lanes.add(lane);
    }
  }

  private async lanesDrained(): Promise<void> {
    while (this.lanes.size > 0) await Promise.all(this.lanes);
  }

  private async drainDueUsers(): Promise<void> {
    for (let key = this.takeDue(); key !== undefined; key = this.takeDue()) {
      const { scope, userId } = parseKey(key);
      this.inLane.add(key);
      try {
        let outcome: LearningStepOutcome;
        do outcome = await runLearningStep(this.deps, scope, userId);
        while (outcome.next === "again");
        if (outcome.next === "sleep") this.sleeping.set(key, outcome.until);
        if (outcome.next === "busy") this.sleeping.set(key, this.deps.now() + BUSY_RETRY_SECONDS);
      } catch (error) {
        // Storage trouble: keep the user and try on a later pass.
        this.sleeping.set(key, this.deps.now() + BUSY_RETRY_SECONDS);
        this.onError(error);
      } finally {
        this.inLane.delete(key);
      }
    }
  }

  /** One attempt at each runnable aggregation operation; one due again at once asks for another pass. */
  private async runDueOperations(): Promise<void> {
    for (const { operationId, ...scope } of await aggregation.findRunnableOperations(this.deps.db, this.deps.now())) {
      const outcome = await runAggregationStep(this.deps, scope, operationId);
      if (outcome.unexpected) this.onError(new Error(`aggregation operation ${operationId}: ${outcome.unexpected}`));
      if (outcome.next === "retry" && outcome.at <= this.deps.now()) this.again = true;
    }
  }

  /** One attempt at each runnable erasure; one due again at once asks for another pass. */
  private async runDuePurges(): Promise<void> {
    for (const { purgeId, ...scope } of await purgeOperations.findRunnablePurges(this.deps.db, this.deps.now())) {
      const outcome = await runPurgeStep(this.deps, scope, purgeId, undefined, this.stopping.signal);
      if (outcome.unexpected) this.onError(new Error(`purge operation ${purgeId}: ${outcome.unexpected}`));
      if (outcome.next === "retry" && outcome.at <= this.deps.now()) this.again = true;
    }
  }

  /** The physical removal pass of completed erasures, when one waits; one not yet due wakes a pass at its time. */
  private async removeErasedBytes(): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const outcome = await removeErasedBytes(this.deps);
    if (outcome.unexpected) this.onError(new Error(outcome.unexpected));
    if (outcome.next !== "retry") return;
    clearTimeout(this.physicalRemovalTimer);
    this.physicalRemovalTimer = setTimeout(() => this.poke(), Math.max(0, outcome.at - this.deps.now()) * 1000 + 100);
    this.physicalRemovalTimer.unref?.();
  }

  /**
   * Grades the sampled sessions whose inactivity delay (or retry backoff) has passed, `lanes` at a
   * time. Without a provider they are left waiting: nothing is dropped, and a restart with one
   * configured grades them.
   */
  private runDueEvaluations(lanes: number): Promise<void> {
    return this.runDueSessionTimers("evaluation_sessions", lanes, (scope, sessionId) => runEvaluationStep(this.deps, scope, sessionId));
  }

  /** Infers the outcomes of the sessions that used a playbook and are due (quiet, or replied to); like evaluations, they wait for a provider. */
  private runDueInferences(lanes: number): Promise<void> {
    return this.runDueSessionTimers("outcome_inferences", lanes, (scope, sessionId) => runOutcomeInferenceStep(this.deps, scope, sessionId));
  }

  /** Runs the step of each due session of a kind of session timer, `lanes` at a time; more due ones ask for another pass. */
  private async runDueSessionTimers(
    table: SessionTimerTable,
    lanes: number,
    step: (scope: Scope, sessionId: string) => Promise<SessionTimerOutcome>,
  ): Promise<void> {
    if (!this.deps.llm) return;
    const due = await sessionTimers.findDueTimers(this.deps.db, table, this.deps.now(), SESSION_TIMER_BATCH);
    const next = () => due.shift();
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        for (let session = next(); session !== undefined; session = next()) {
          const { sessionId, ...scope } = session;
          await step(scope, sessionId);
        }
      }),
    );
    if ((await sessionTimers.findDueTimers(this.deps.db, table, this.deps.now(), 1)).length > 0) this.again = true;
  }

  /** One attempt at each runnable regenerate job; a job left to retry now asks for another pass. */
  private async runDueEvaluationJobs(): Promise<void> {
    for (const { jobId, ...scope } of await evaluationJobs.findRunnableJobs(this.deps.db, this.deps.now())) {
      const outcome = await runEvaluationJobStep(this.deps, scope, jobId);
      if (outcome.unexpected) this.onError(new Error(`regenerate job ${jobId}: ${outcome.unexpected}`));
    }
  }

  /** One attempt at each data-source sample waiting to be read; one due again at once asks for another pass. */
  private async runDueSamples(): Promise<void> {
    for (const { sampleId, ...scope } of await dataSourceSamples.findRunnableSamples(this.deps.db, this.deps.now())) {
      const outcome = await runSampleStep(this.deps, scope, sampleId);
      if (outcome.unexpected) this.onError(new Error(`data-source sample ${sampleId}: ${outcome.unexpected}`));
      if (outcome.next === "retry" && outcome.at <= this.deps.now()) this.again = true;
    }
  }

  /**
   * Each due data-source collection's step until it has nothing to do now (its backfill waits for a
   * budget, live traffic for the next poll), at most COLLECTION_STEPS_PER_PASS steps a pass so the
   * other kinds of work of the pass are not held up by a long backfill; more asks for another pass.
   */
  private async runDueCollections(): Promise<void> {
    for (const { streamId, ...scope } of await dataSourceCollections.findRunnableCollections(this.deps.db, this.deps.now())) {
      for (let steps = 0; ; steps++) {
        if (this.stopping.signal.aborted) return;
        const outcome = await runCollectionStep(this.deps, scope, streamId);
        if (outcome.unexpected) this.onError(new Error(`data-source collection ${streamId}: ${outcome.unexpected}`));
        if (outcome.next !== "again") break;
        if (steps >= COLLECTION_STEPS_PER_PASS) {
          this.again = true;
          break;
        }
      }
    }
  }

  /** Starts the lane of generation runs, or asks the running lane to look again when it ends. */
  private runGenerationLane(): void {
    if (this.generationLane) {
      this.generationAgain = true;
      return;
    }
    this.generationLane = this.runDueGenerationRuns()
      .catch(this.onError)
      .finally(() => {
        this.generationLane = undefined;
        if (this.generationAgain) {
          this.generationAgain = false;
          this.runGenerationLane();
        }
      });
  }

  /** One attempt at each runnable generation run; a retry's backoff is seen by a later pass (the wake-up timer's). */
  private async runDueGenerationRuns(): Promise<void> {
    for (const { runId, ...scope } of await generationRuns.findRunnableRuns(this.deps.db, this.deps.now())) {
      if (this.stopping.signal.aborted) return;
      const outcome = await runGenerationStep(this.deps, scope, runId, undefined, this.stopping.signal);
      if (outcome.unexpected) this.onError(new Error(`generation run ${runId}: ${outcome.unexpected}`));
    }
  }

  /** The first queued user no lane is learning from now. */
  private nextDue(): UserKey | undefined {
    for (const key of this.due) if (!this.inLane.has(key)) return key;
    return undefined;
  }

  private takeDue(): UserKey | undefined {
    const next = this.nextDue();
    if (next !== undefined) this.due.delete(next);
    return next;
  }

  private async reembedStaleRows(): Promise<void> {
    for (const scope of await staleEmbeddings.findScopesWithStaleEmbeddings(this.deps.db, this.deps.embedder.modelId)) {
      let progress: ReembedProgress;
      do progress = await reembedStaleRowsStep(this.deps, scope, REEMBED_BATCH);
      while (progress.remaining > 0 && progress.reembedded > 0);
    }
  }
}

/**
 * The embedded mode's dependencies: `base` with the orchestrator port set to a reconciler that runs
 * over them. Its first poke() starts the pass that picks up what a crash left.
 */
export function reconcile(base: CoreDeps, onError: (error: unknown) => void): { deps: CoreDeps; reconciler: Reconciler } {
  // The reconciler runs steps that schedule work themselves, so it is built over the deps that carry it.
  const deps: CoreDeps = { ...base, orchestrator: { schedule: (kind, scope, id) => reconciler.schedule(kind, scope, id) } };
  const reconciler = new Reconciler(deps, onError);
  return { deps, reconciler };
}
