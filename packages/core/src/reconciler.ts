import { documentExpansion, plannerStatistics, type Scope, staleEmbeddings } from "@als/db";
import { type BackgroundLoop, startBackgroundLoop } from "./background-loop.ts";
import { Lanes } from "./concurrency/lanes.ts";
import { type CoreDeps, DEFAULT_LEARNING_CONCURRENCY } from "./deps.ts";
import { DURABLE_WORK, type DurableKind, durableWork } from "./durable/catalogue.ts";
import type { DurableOutcome, DurableWork } from "./durable/durable-work.ts";
import type { Orchestrator } from "./durable/orchestrator.ts";
import { type ReembedProgress, reembedStaleRowsStep } from "./reembed-stale-rows.ts";
import { startDocumentExpansionLoop } from "./search/document-expansion-loop.ts";
import { startVectorSyncLoop, type VectorSyncLoop } from "./vector-sync/vector-sync-loop.ts";

const REEMBED_BATCH = 256;
/** How soon a key of a `users` lane whose lease another step held is tried again. */
const BUSY_RETRY_SECONDS = 5;
/** How often sleeping keys (users) are checked against the clock. */
const WAKE_CHECK_MS = 30_000;
/**
 * PGlite runs no autovacuum, so the embedded database's planner statistics are kept here: every few
 * seconds the tables that grew past their statistics are analyzed (as autovacuum would), and once
 * an hour the searched tables are, since the full-text arm tells common words from distinctive ones
 * by their statistics, which change without growth. Often, because an ANALYZE is also what makes
 * PostgreSQL plan a prepared statement again: a generic plan made while a table was small (a scan
 * of the whole table, then cheap) is kept as the table grows. Adding 10,000 profiles, 100 a call,
 * a call took 166 ms throughout with the tables analyzed every 2,000 rows, and grew to 480–570 ms
 * without (the in-process index's read of the changed rows scanned the whole table). The check is
 * a catalog query of about 6 ms.
 */
const STATISTICS_CHECK_MS = 5 * 1000;
const ANALYZE_SEARCHED_EVERY_MS = 60 * 60 * 1000;
const SEARCHED_TABLES = ["profiles", "user_playbooks", "agent_playbooks", "interactions"];

type LaneKey = string;
const keyOf = (kind: DurableKind, scope: Scope, id: string): LaneKey => JSON.stringify([kind, scope.orgId, scope.projectId, id]);
const parseKey = (key: LaneKey) => {
  const [kind, orgId, projectId, id] = JSON.parse(key) as [DurableKind, string, string, string];
  return { kind, scope: { orgId, projectId }, id };
};

/**
 * The embedded mode's orchestrator: it calls the same idempotent steps that Temporal workflows call
 * as activities in full mode, in this process, for every kind of the catalogue (DURABLE_WORK) in the
 * lane its entry names (see ReconcilerLane). Its first pass lets go of the leases this process held
 * before a restart, re-embeds stale profiles and playbooks and queues the waiting keys of `users`
 * lanes (users with interactions not yet learned from), so a restart loses nothing; after that,
 * `schedule` queues a key whose work moved, or wakes a pass, and sleeping keys (a short window
 * waiting for its inactivity deadline, a retry's backoff) are woken when their time comes. With a
 * vector index configured, it also drains the vector outbox into it (see startVectorSyncLoop); with
 * an LLM, it expands the learnings of projects that enable document expansion
 * (startDocumentExpansionLoop).
 */
export class Reconciler implements Orchestrator {
  /** The passes: one at a time; one asked for while a pass runs (poke) runs once more after it. */
  private readonly passes = new Lanes<"pass">({ concurrency: () => 1, run: () => this.run(), onError: (error) => this.onError(error) });
  private recovered = false;
  /** One lane per `own` kind; a kind asked for while its lane runs looks again when it ends. */
  private readonly ownLanes = new Lanes<DurableKind>({
    concurrency: () => Number.POSITIVE_INFINITY,
    run: (kind) => this.runOwnItems(durableWork(kind)),
    onError: (error) => this.onError(error),
  });
  /** Aborted by stop(): a long step in progress (a generation run) ends at its next commit and waits for the next start. */
  private readonly stopping = new AbortController();
  /**
   * Lanes stepping due keys of `users` kinds (users learning), one key at a time, and mostly waiting
   * on the LLM: as many lanes as the provider takes calls. A key queued again while a lane steps it
   * waits for that step to end: another lane would only find its lease held and put it to sleep.
   */
  private readonly lanes = new Lanes<LaneKey>({
    concurrency: () => this.deps.learning?.concurrency ?? DEFAULT_LEARNING_CONCURRENCY,
    run: (key) => this.stepKey(key),
    onError: (error) => this.onError(error),
  });
  private readonly sleeping = new Map<LaneKey, number>();
  private readonly timer: ReturnType<typeof setInterval>;
  /** Wake a pass when a kind's follow-up may run again (the next physical removal of erased rows, see removeErasedBytes). */
  private readonly followUpTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private searchedAnalyzedAt = -Infinity;
  /** The embedded database's statistics, kept on a timer of their own (see STATISTICS_CHECK_MS). */
  private readonly statistics: BackgroundLoop | undefined;
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
    if (deps.db.kind === "pglite") this.statistics = startBackgroundLoop(() => this.refreshPlannerStatistics(), STATISTICS_CHECK_MS, onError);
  }

  /** The orchestrator port: a key of a `users` lane (a user whose stream moved) is queued; any other kind of work wakes a pass. */
  schedule(kind: DurableKind, scope: Scope, id: string): void {
    if (durableWork(kind).reconcile.lane !== "users") {
      this.poke();
      return;
    }
    this.lanes.queue(keyOf(kind, scope, id));
    this.sleeping.delete(keyOf(kind, scope, id));
    // A key queued while a pass runs takes an idle lane now rather than waiting for the next pass.
    if (this.recovered) this.lanes.start();
    this.poke();
  }

  /** Starts a pass, or asks the running pass to run once more when it ends. */
  poke(): void {
    this.passes.request("pass");
  }

  /** Resolves when no pass or lane is running and no key is queued (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.passes.running > 0 || this.ownLanes.running > 0 || this.lanes.running > 0)
      await Promise.all([this.passes.drained(), this.ownLanes.drained(), this.lanes.drained()]);
    await this.vectorSync?.idle();
    await this.documentExpansion?.idle();
    await this.statistics?.idle();
  }

  /** Stops the wake-up timers, and long steps at their next commit; a running pass still finishes (await idle()). */
  stop(): void {
    clearInterval(this.timer);
    for (const timer of this.followUpTimers.values()) clearTimeout(timer);
    this.stopping.abort();
    this.vectorSync?.stop();
    this.documentExpansion?.stop();
    this.statistics?.stop();
  }

  /** The embedded database's autovacuum analyze (see STATISTICS_CHECK_MS). */
  private async refreshPlannerStatistics(): Promise<void> {
    const now = performance.now();
    const grown = await plannerStatistics.tablesOutgrowingStatistics(this.deps.db);
    const searchedDue = now - this.searchedAnalyzedAt >= ANALYZE_SEARCHED_EVERY_MS;
    if (searchedDue) this.searchedAnalyzedAt = now;
    await plannerStatistics.analyzeTables(this.deps.db, [...new Set([...grown, ...(searchedDue ? SEARCHED_TABLES : [])])]);
  }

  private async run(): Promise<void> {
    try {
      if (!this.recovered) await this.recover();
      const now = this.deps.now();
      for (const [key, until] of this.sleeping) {
        if (until <= now) {
          this.sleeping.delete(key);
          this.lanes.queue(key);
        }
      }
      for (const work of DURABLE_WORK) if (work.reconcile.lane === "own") this.ownLanes.request(work.kind);
      this.lanes.start();
      await Promise.all([this.lanes.drained(), ...DURABLE_WORK.map((work) => this.runInPass(work))]);
    } catch (error) {
      this.onError(error);
    }
  }

  /**
   * The first pass: the embedded database belongs to this one process, so a lease still held was
   * held by this process before it crashed; each kind takes its work up again (see releaseLeases).
   */
  private async recover(): Promise<void> {
    for (const work of DURABLE_WORK) await work.releaseLeases(this.deps);
    await documentExpansion.releaseAllExpansionLeases(this.deps.db);
    await this.reembedStaleRows();
    for (const work of DURABLE_WORK) {
      if (work.reconcile.lane === "users") for (const { scope, id } of await work.findWaiting(this.deps)) this.lanes.queue(keyOf(work.kind, scope, id));
    }
    this.recovered = true;
  }

  /** The part of a pass a kind's lane takes. */
  private async runInPass(work: DurableWork): Promise<void> {
    const { reconcile } = work;
    if (reconcile.lane === "pass") await this.runDue(work, reconcile.stepsPerPass ?? 0);
    if (reconcile.lane === "sessions") await this.runDueSessions(work, reconcile.batch);
  }

  /** Steps a due key of a `users` kind (a user's learning) until it has nothing to do now; one to do later sleeps until then. */
  private async stepKey(key: LaneKey): Promise<void> {
    const { kind, scope, id } = parseKey(key);
    const work = durableWork(kind);
    try {
      let outcome: DurableOutcome;
      do outcome = await work.step(this.deps, scope, id);
      while (outcome.next === "again");
      if (outcome.next === "sleep") this.sleeping.set(key, outcome.until);
      if (outcome.next === "retry") this.sleeping.set(key, outcome.at);
      if (outcome.next === "busy") this.sleeping.set(key, this.deps.now() + BUSY_RETRY_SECONDS);
    } catch (error) {
      // Storage trouble: keep the key and try on a later pass.
      this.sleeping.set(key, this.deps.now() + BUSY_RETRY_SECONDS);
      this.onError(error);
    }
  }

  /**
   * One attempt at each runnable item of a `pass` kind, `stepsPerPass` more while it has more to do
   * now (then the next pass goes on, so the other kinds are not held up); one due again at once asks
   * for another pass. Then the kind's follow-up, if any.
   */
  private async runDue(work: DurableWork, stepsPerPass: number): Promise<void> {
    for (const { scope, id } of await work.findRunnable!(this.deps, Number.POSITIVE_INFINITY)) {
      for (let steps = 0; ; steps++) {
        if (this.stopping.signal.aborted) return;
        const outcome = await work.step(this.deps, scope, id, undefined, this.stopping.signal);
        this.reportUnexpected(work, id, outcome);
        if (outcome.next === "retry" && outcome.at <= this.deps.now()) this.poke();
        if (outcome.next !== "again") break;
        if (steps >= stepsPerPass) {
          this.poke();
          break;
        }
      }
    }
    if (work.followUp) await this.runFollowUp(work.kind, work.followUp);
  }

  /** A kind's follow-up (the physical removal pass of completed erasures) when one waits; one not yet due wakes a pass at its time. */
  private async runFollowUp(kind: string, followUp: NonNullable<DurableWork["followUp"]>): Promise<void> {
    if (this.stopping.signal.aborted) return;
    const outcome = await followUp.step(this.deps);
    if (outcome.unexpected) this.onError(new Error(outcome.unexpected));
    if (outcome.next !== "retry") return;
    clearTimeout(this.followUpTimers.get(kind));
    const timer = setTimeout(() => this.poke(), Math.max(0, outcome.at - this.deps.now()) * 1000 + 100);
    timer.unref?.();
    this.followUpTimers.set(kind, timer);
  }

  /**
   * Steps the due items of a `sessions` kind (sessions whose inactivity delay or retry backoff has
   * passed), as many at once as learning lanes; more due ones ask for another pass. Without a
   * provider they are left waiting: nothing is dropped, and a restart with one configured runs them.
   */
  private async runDueSessions(work: DurableWork, batch: number): Promise<void> {
    if (!this.deps.llm) return;
    const due = await work.findRunnable!(this.deps, batch);
    const next = () => due.shift();
    await Promise.all(
      Array.from({ length: this.deps.learning?.concurrency ?? DEFAULT_LEARNING_CONCURRENCY }, async () => {
        for (let item = next(); item !== undefined; item = next()) await work.step(this.deps, item.scope, item.id);
      }),
    );
    if ((await work.findRunnable!(this.deps, 1)).length > 0) this.poke();
  }

  /** One attempt at each runnable item of an `own` kind; a retry's backoff is seen by a later pass (the wake-up timer's). */
  private async runOwnItems(work: DurableWork): Promise<void> {
    for (const { scope, id } of await work.findRunnable!(this.deps, Number.POSITIVE_INFINITY)) {
      if (this.stopping.signal.aborted) return;
      this.reportUnexpected(work, id, await work.step(this.deps, scope, id, undefined, this.stopping.signal));
    }
  }

  /** A step keeps a safe error code only; the operator's log gets what went wrong. */
  private reportUnexpected(work: DurableWork, id: string, outcome: DurableOutcome): void {
    if ("unexpected" in outcome && outcome.unexpected) this.onError(new Error(`${work.noun} ${id}: ${outcome.unexpected}`));
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
