import type { Database } from "@als/db";
import { type CoreDeps, DEFAULT_SEARCH_CONCURRENCY } from "../deps.ts";
import { SEARCH_DEADLINE_MS } from "../settings.ts";

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

/** The time between two finished searches before any were measured. */
const INITIAL_INTERVAL_MS = 100;
/** Weight of the newest measurement in the running estimate of the time between finished searches. */
const INTERVAL_WEIGHT = 0.2;

interface Waiter {
  deadline: number;
  grant: () => void;
  shed: () => void;
}

/**
 * The slots of one process's searches: at most `concurrency` under way, the rest wait in turn, and
 * only while they could still finish in time. That is judged by the process's measured pace: the
 * running mean of the time between two finished searches while busy (a search alone: its duration).
 * Searches finish about in the order they were admitted (the oldest search's statements go first,
 * see StatementTurns), so one with `n` searches ahead of it (under way or waiting) is expected to
 * finish `n + 1` paces from now; one that would not make its deadline is shed at once, and each
 * finished search re-judges the waiting ones with the new pace.
 */
class SearchSlots {
  private taken = 0;
  private readonly waiting: Waiter[] = [];
  private intervalMs = INITIAL_INTERVAL_MS;
  private lastFinishedAt = Number.NEGATIVE_INFINITY;

  constructor(readonly concurrency: number) {}

  /** A slot's release function, or undefined when the search could not finish by `deadline` (shed). */
  take(deadline: number): Promise<(() => void) | undefined> {
    const ahead = this.taken + this.waiting.length;
    if (ahead > 0 && performance.now() + (ahead + 1) * this.intervalMs > deadline) return Promise.resolve(undefined);
    if (this.taken < this.concurrency) {
      this.taken++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        deadline,
        grant: () => {
          clearTimeout(timer);
          resolve(this.releaser());
        },
        shed: () => {
          clearTimeout(timer);
          resolve(undefined);
        },
      };
      // However the pace goes, a search that has not started one pace before its deadline will not make it.
      const timer = setTimeout(
        () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve(undefined);
        },
        Math.max(0, deadline - this.intervalMs - performance.now()),
      );
      this.waiting.push(waiter);
    });
  }

  /** Seconds until a refused search is worth retrying: until those under way and waiting are done, at least one. */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(((this.taken + this.waiting.length) * this.intervalMs) / 1000));
  }

  /** Sheds, from the back, the waiting searches that the current pace would finish past their deadlines. */
  private shedLate(): void {
    const now = performance.now();
    for (let index = this.waiting.length - 1; index >= 0; index--) {
      const waiter = this.waiting[index]!;
      if (now + (this.taken + index + 1) * this.intervalMs <= waiter.deadline) continue;
      this.waiting.splice(index, 1);
      waiter.shed();
    }
  }

  private releaser(): () => void {
    const startedAt = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const now = performance.now();
      this.intervalMs += INTERVAL_WEIGHT * (now - Math.max(startedAt, this.lastFinishedAt) - this.intervalMs);
      this.lastFinishedAt = now;
      // The slot passes straight to the next waiter, so the count stays taken.
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.taken--;
      this.shedLate();
    };
  }
}

/** One database is one process: its search slots are shared by every search of the process. */
const slotsOf = new WeakMap<Database, SearchSlots>();

export interface SearchAdmissionOptions {
  /** The search's deadline, for judging whether it can still finish in time; default SEARCH_DEADLINE_MS. */
  deadlineMs?: number;
  /** When the search (its request) started, performance.now(); default now. */
  startedAt?: number;
  /** Aborted when the search's deadline passes: its statements not yet sent are then skipped. */
  signal?: AbortSignal;
}

/**
 * Runs a search under the process's search admission (SearchSettings.concurrency searches at once).
 * A search waits for a slot only while it could still finish within its deadline (the search
 * deadline; the default one for searches without a deadline of their own); one that could not is
 * refused at once with SearchOverloadedError (503 overloaded, Retry-After). The slot is held until
 * the search's work settles, not until it is answered: the bound is on work under way. `work` gets
 * the dependencies the search runs with: the database as abortableDatabase sees it.
 */
export async function admitSearch<T>(deps: CoreDeps, work: (admitted: CoreDeps) => Promise<T>, options: SearchAdmissionOptions = {}): Promise<T> {
  const { deadlineMs = SEARCH_DEADLINE_MS, startedAt = performance.now(), signal = new AbortController().signal } = options;
  const concurrency = deps.search?.concurrency ?? DEFAULT_SEARCH_CONCURRENCY;
  let slots = slotsOf.get(deps.db);
  if (!slots || slots.concurrency !== concurrency) {
    slots = new SearchSlots(concurrency);
    slotsOf.set(deps.db, slots);
  }
  const release = await slots.take(startedAt + deadlineMs);
  if (!release) throw new SearchOverloadedError(concurrency, slots.retryAfterSeconds());
  let running: Promise<T>;
  try {
    running = work({ ...deps, db: abortableDatabase(deps.db, signal, startedAt) });
  } catch (error) {
    release();
    throw error;
  }
  running.then(release, release);
  return running;
}

/**
 * Embedded, every statement runs on this thread, and PGlite starts a queued statement as soon as the
 * one before it ends, without letting timers or sockets run: a few dozen searches' statements queued
 * at once would hold the event loop until all of them ran, deadlines and answers included. Searches
 * therefore hand PGlite one statement (or transaction) at a time, in turn; each turn first lets the
 * event loop run, so a deadline that passed meanwhile is seen and its search's statements are
 * skipped instead of run.
 */
class StatementTurns {
  private busy = false;
  /** Waiting statements, the oldest search's first. */
  private readonly waiting: { rank: number; turn: () => void }[] = [];

  /** `rank`: when the statement's search started; the oldest search's statements go first, so searches finish in order. */
  run<T>(signal: AbortSignal, rank: number, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const turn = () =>
        setImmediate(() => {
          if (signal.aborted) {
            reject(signal.reason);
            this.next();
            return;
          }
          let running: Promise<T>;
          try {
            running = work();
          } catch (error) {
            running = Promise.reject(error);
          }
          running.then(resolve, reject);
          running.then(
            () => this.next(),
            () => this.next(),
          );
        });
      if (this.busy) {
        const at = this.waiting.findIndex((waiting) => waiting.rank > rank);
        this.waiting.splice(at === -1 ? this.waiting.length : at, 0, { rank, turn });
      } else {
        this.busy = true;
        turn();
      }
    });
  }

  private next(): void {
    const waiting = this.waiting.shift();
    if (waiting) waiting.turn();
    else this.busy = false;
  }
}

const turnsOf = new WeakMap<Database, StatementTurns>();

/**
 * The database as one search sees it: once `signal` is aborted (its deadline passed) no further
 * statement is sent; each rejects with the signal's reason. A statement already sent still runs.
 * Embedded (PGlite), searches' statements take turns, those of the search started first (`startedAt`) first (see StatementTurns).
 */
export function abortableDatabase(db: Database, signal: AbortSignal, startedAt = performance.now()): Database {
  let turns = turnsOf.get(db);
  if (!turns && db.kind === "pglite") {
    turns = new StatementTurns();
    turnsOf.set(db, turns);
  }
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
