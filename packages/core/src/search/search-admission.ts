import { availableParallelism } from "node:os";
import type { Database } from "@als/db";
import type { RankedTurns } from "../concurrency/ranked-turns.ts";
import { type Release, Slots, type TakeOptions } from "../concurrency/slots.ts";
import type { CoreDeps } from "../deps.ts";
import { RequestTimings } from "../request-timings.ts";
import { SEARCH_DEADLINE_MS } from "../settings.ts";
import type { SearchContext } from "./search-context.ts";

/**
 * 503 overloaded: with the searches already under way or waiting, this one could not have finished
 * within its deadline, so it was refused before doing any work.
 * `retry_after` (seconds, also sent as the Retry-After header) is when a slot is likely free again.
 */
export class SearchOverloadedError extends Error {
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "overloaded";
  readonly reason = "search_concurrency";
  /** The fields the contract puts in the answer's body. */
  readonly details: { retry_after: number };
  constructor(concurrency: number, retryAfterSeconds: number) {
    super(`too many searches are under way (at most ${concurrency} at once) to finish this one within its deadline; retry after ${retryAfterSeconds} s`);
    this.name = "SearchOverloadedError";
    this.details = { retry_after: retryAfterSeconds };
  }
}

/**
 * Below this many searches under way and waiting, none is refused: so few cannot overload the
 * process (its cores keep that many busy), and an estimate that says otherwise is wrong, not the load.
 */
const SHED_FLOOR = 2 * availableParallelism();
/** Recent pace samples the estimate is the median of. */
const PACE_WINDOW = 9;
/** Fewer recent samples than this are no evidence of overload: nothing is shed on them. */
const PACE_MIN_SAMPLES = 3;
/** A sample older than this says nothing about the load now; without newer ones no search is shed. */
const PACE_MEMORY_MS = 10_000;

/**
 * The slots of one process's searches (ProcessServices.searchSlots): at most `concurrency` under way, the rest wait in turn, and
 * only while they could still finish in time.
 *
 * A search is refused only for queued work that could not finish within its deadline, so all of
 * these must hold: every slot is taken (a search that can start at once is never refused); at
 * least SHED_FLOOR searches are under way or waiting; another search already waits ahead of it (a
 * lone waiter is the ordinary state of a busy service at its bound, and its own timer ends its
 * wait); and the measured pace says the searches ahead of it would finish it past its deadline.
 * Searches finish about in the order they were admitted (the oldest search's statements go first,
 * see abortableDatabase), so one with `n` searches ahead of it (under way or waiting) is expected to
 * finish `n + 1` paces from now. Each finished search re-judges the waiting ones, from the back, by
 * the same rule.
 *
 * The pace is the time per finished search while the process is at its bound. A wrong one refuses
 * searches of a service that is not overloaded (a lone search that had waited 2 s on a slow LLM
 * once made 40 ordinary searches after it answer 503), so:
 * - it is sampled only while searches wait for a slot: a search finishing when none waits says
 *   nothing about throughput, its time may have gone to a provider rather than to CPU or database;
 * - a sample is the finished search's time in its slot divided by the searches under way (Little's
 *   law), which at the bound is the time between two finished searches whether the searches share
 *   one PGlite thread (embedded) or run side by side in PostgreSQL; the plain time between two
 *   finished searches would, at the start of a burst in PostgreSQL, read a whole search's latency;
 * - the estimate is the median of the last PACE_WINDOW samples and needs PACE_MIN_SAMPLES of them,
 *   so one slow search (a provider, a lock, a pause) cannot move it;
 * - samples are forgotten after PACE_MEMORY_MS, so a pace measured under an earlier load refuses
 *   nothing now; without evidence a search waits and only its deadline ends the wait.
 */
export class SearchSlots {
  private readonly slots: Slots;
  /** Recent pace samples, oldest first. */
  private readonly samples: { at: number; paceMs: number }[] = [];

  constructor(readonly concurrency: number) {
    this.slots = new Slots(concurrency);
  }

  /** Searches under way now (read when metrics are scraped). */
  get taken(): number {
    return this.slots.taken;
  }

  /** Searches waiting for a slot now. */
  get waiting(): number {
    return this.slots.waiting;
  }

  /** A slot's release function, or undefined when the search could not finish by `deadline` (shed). */
  async take(deadline: number, signal: AbortSignal): Promise<Release | undefined> {
    let waiting: TakeOptions = {};
    if (!this.slots.free) {
      const now = performance.now();
      const paceMs = this.paceMs(now);
      if (!this.couldFinish(this.slots.waiting, deadline, now, paceMs)) return undefined;
      // Whatever the estimate, a search that has not started one pace before its deadline will not make it;
      // one whose deadline passed (signal aborted) has been answered already and gives its place up.
      waiting = { signal, giveUpAt: deadline - (paceMs ?? 0) };
    }
    const release = await this.slots.take(deadline, waiting);
    return release && this.sampling(release);
  }

  /** Seconds until a refused search is worth retrying: until those under way and waiting are done, at least one. */
  retryAfterSeconds(): number {
    const paceMs = this.paceMs(performance.now());
    // Unmeasured: the search waited a whole deadline without a slot coming free.
    const waitMs = paceMs === undefined ? SEARCH_DEADLINE_MS : (this.slots.taken + this.slots.waiting) * paceMs;
    return Math.max(1, Math.ceil(waitMs / 1000));
  }

  /** Whether the waiter at `position` of the queue (the new one when it is the queue's length) is to keep waiting. */
  private couldFinish(position: number, deadline: number, now: number, paceMs: number | undefined): boolean {
    const ahead = this.slots.taken + position;
    if (ahead < SHED_FLOOR || position === 0 || paceMs === undefined) return true;
    return now + (ahead + 1) * paceMs <= deadline;
  }

  /** The median of the recent samples; undefined when there are too few to go by. */
  private paceMs(now: number): number | undefined {
    while (this.samples.length > 0 && now - this.samples[0]!.at > PACE_MEMORY_MS) this.samples.shift();
    if (this.samples.length < PACE_MIN_SAMPLES) return undefined;
    const sorted = this.samples.map((sample) => sample.paceMs).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)];
  }

  /** Sheds, from the back, the waiting searches that the current pace would finish past their deadlines. */
  private shedLate(): void {
    const now = performance.now();
    const paceMs = this.paceMs(now);
    if (paceMs === undefined) return;
    this.slots.dismiss((position, deadline) => !this.couldFinish(position, deadline, now, paceMs));
  }

  /** `release`, which also samples the pace (while searches wait) and re-judges the waiting searches. */
  private sampling(release: Release): Release {
    const startedAt = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = performance.now();
      if (this.slots.waiting > 0) {
        this.samples.push({ at: now, paceMs: (now - startedAt) / this.slots.taken });
        if (this.samples.length > PACE_WINDOW) this.samples.shift();
      }
      release();
      this.shedLate();
    };
  }
}

export interface SearchAdmissionOptions {
  /** The search's deadline, for judging whether it can still finish in time; default SEARCH_DEADLINE_MS. */
  deadlineMs?: number;
  /** When the search (its request) started, performance.now(); default now. */
  startedAt?: number;
  /** Aborted when the search's deadline passes: its statements not yet sent are then skipped. */
  signal?: AbortSignal;
  /** Where the wait for a slot (stage `admission`, refused searches included) and the search's stages are recorded. */
  timings?: RequestTimings;
}

/**
 * Runs a search under the process's search admission (SearchSettings.concurrency searches at once).
 * A search waits for a slot only while it could still finish within its deadline (the search
 * deadline; the default one for searches without a deadline of their own); one that the measured
 * load says could not is refused with SearchOverloadedError (503 overloaded, Retry-After), by the
 * rule of SearchSlots. The slot is held until
 * the search's work settles, not until it is answered: the bound is on work under way. `work` gets
 * the search's context: its signal, deadline and timings, the database as abortableDatabase sees it.
 */
export async function admitSearch<T>(
  deps: Pick<CoreDeps, "db" | "embedder" | "vectorIndex" | "services">,
  work: (search: SearchContext) => Promise<T>,
  options: SearchAdmissionOptions = {},
): Promise<T> {
  const { deadlineMs = SEARCH_DEADLINE_MS, startedAt = performance.now(), signal = new AbortController().signal, timings = new RequestTimings() } = options;
  const slots = deps.services.searchSlots;
  const deadline = startedAt + deadlineMs;
  const waitingSince = performance.now();
  const release = await slots.take(deadline, signal);
  timings.since("admission", waitingSince);
  if (!release) throw new SearchOverloadedError(slots.concurrency, slots.retryAfterSeconds());
  let running: Promise<T>;
  try {
    running = work({
      signal,
      startedAt,
      deadline,
      timings,
      db: abortableDatabase(deps.db, signal, startedAt, deps.services.statementTurns),
      embedder: deps.embedder,
      vectorIndex: deps.vectorIndex,
    });
  } catch (error) {
    release();
    throw error;
  }
  running.then(release, release);
  return running;
}

/**
 * The database as one search sees it: once `signal` is aborted (its deadline passed) no further
 * statement is sent; each rejects with the signal's reason. A statement already sent still runs.
 * With `turns` (embedded, ProcessServices.statementTurns), searches' statements take turns, those of
 * the search started first (`startedAt`) first.
 *
 * Embedded, every statement runs on this thread, and PGlite starts a queued statement as soon as the
 * one before it ends, without letting timers or sockets run: a few dozen searches' statements queued
 * at once would hold the event loop until all of them ran, deadlines and answers included. Searches
 * therefore hand PGlite one statement (or transaction) at a time, in turns that first let the event
 * loop run, so a deadline that passed meanwhile is seen and its search's statements are skipped
 * instead of run. The oldest search's statements go first (ranked by when it started), so searches
 * finish in the order they were admitted.
 */
export function abortableDatabase(db: Database, signal: AbortSignal, startedAt = performance.now(), turns?: RankedTurns): Database {
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    if (signal.aborted) return Promise.reject(signal.reason);
    return turns ? turns.run(signal, startedAt, work) : work();
  };
  const check = () => (signal.aborted ? Promise.reject(signal.reason) : undefined);
  return {
    kind: db.kind,
    query: (text, params) => inTurn(() => db.query(text, params)),
    exec: (script) => inTurn(() => db.exec(script)),
    transaction: (work, options) =>
      inTurn(() =>
        db.transaction(
          (tx) =>
            work({
              query: (text, params) => check() ?? tx.query(text, params),
              exec: (script) => check() ?? tx.exec(script),
            }),
          { signal, ...options },
        ),
      ),
    close: () => db.close(),
  };
}
