import { type Database, isAfterEarlierFailure, type Sql, StorageUnavailableError } from "@als/db";

/**
 * Group commit for publishes. At most this many transactions of a process take publishes from its
 * queue at once. A publish that finds none running starts at once, so a lone publish waits for
 * nobody; one that arrives while some run waits (see startAfterThisTurn), and those that waited
 * start together in a free one: each still runs its own statements, pipelined on the shared
 * connection, but they pay one BEGIN, one COMMIT and one round trip per step between them, which was
 * most of a publish's cost at concurrency 16 on both sides of the socket (bench/publish.ts, "Session
 * 18"). Three kept the two cores busiest in that bench (two and four were within its noise).
 */
const SHARED_TRANSACTIONS = 3;

/**
 * Publishes that failed in a shared transaction for a reason of their own run again alone, at most
 * this many at once: with the shared ones, at most eight publish transactions hold pooled connections
 * (of ten), however many publishes wait on a lock.
 */
const ALONE_TRANSACTIONS = 5;

/**
 * How long a shared transaction of several users' publishes waits for a row lock held by another
 * transaction (a publish run alone, an erasure, a lease) before the publish that asked for it runs
 * again alone: one blocked user must not hold up the others of its transaction. A transaction of one
 * user's publishes waits as a publish alone does, in the transaction and connection it has: they
 * could not commit before that lock anyway, and running them again would take new connections from a
 * pool that may be short of them.
 */
const SHARED_LOCK_TIMEOUT = "SET LOCAL lock_timeout = '100ms'";

interface Waiting {
  lockOrder: string;
  work: (tx: Sql) => Promise<unknown>;
  signal: AbortSignal;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Thrown inside a shared transaction when one of its publishes failed: it rolls back, sending no COMMIT. */
class WorkFailed extends Error {
  constructor(readonly outcomes: PromiseSettledResult<unknown>[]) {
    super("a publish of the shared transaction failed");
  }
}

/** PostgreSQL's lock_not_available (SHARED_LOCK_TIMEOUT), which the driver reports as a storage timeout. */
const isLockTimeout = (error: unknown) => error instanceof StorageUnavailableError && (error.cause as { code?: unknown } | undefined)?.code === "55P03";

/**
 * A process's publish transactions (ProcessServices.sharedCommits): `run` takes a publish's writes
 * into a transaction it may share with other publishes of the process.
 */
export class SharedCommits {
  private readonly waiting: Waiting[] = [];
  private readonly waitingAlone: Waiting[] = [];
  private sharedRunning = 0;
  private aloneRunning = 0;
  private startScheduled = false;

  constructor(private readonly db: Database) {}

  /**
   * Runs `work` (a publish's writes) in a transaction it may share with other publishes of this
   * process (see SHARED_TRANSACTIONS): it commits with them or not at all, and a failure of another
   * publish of the same transaction never becomes its answer. `lockOrder` orders the publishes of one
   * transaction by the row locks they take first; `signal`, as for Database.transaction, stops it
   * before its COMMIT.
   */
  run<T>(lockOrder: string, work: (tx: Sql) => Promise<T>, signal: AbortSignal): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ lockOrder, work, signal, resolve: resolve as (value: unknown) => void, reject });
      if (this.sharedRunning === 0) this.startWaiting();
      else this.startAfterThisTurn();
    });
  }

  /**
   * While a shared transaction runs, a publish that arrives waits for the end of the event loop's
   * turn even if another transaction is free: the publishes of one turn (the clients of a group just
   * answered, sending their next) then start together instead of one alone and the rest in the next
   * group. In bench/publish.ts (full, c=16) that was 20% more publishes a second, and a lower p95.
   */
  private startAfterThisTurn(): void {
    if (this.startScheduled) return;
    this.startScheduled = true;
    setImmediate(() => {
      this.startScheduled = false;
      this.startWaiting();
    });
  }

  private startWaiting(): void {
    while (this.sharedRunning < SHARED_TRANSACTIONS) {
      const batch = takeUnexpired(this.waiting, this.waiting.length);
      if (batch.length === 0) break;
      this.sharedRunning++;
      void this.runBatch(batch).finally(() => {
        this.sharedRunning--;
        this.startWaiting();
      });
    }
    while (this.aloneRunning < ALONE_TRANSACTIONS) {
      const [entry] = takeUnexpired(this.waitingAlone, 1);
      if (!entry) break;
      this.aloneRunning++;
      void this.db
        .transaction(entry.work, { signal: entry.signal })
        .then(entry.resolve, entry.reject)
        .finally(() => {
          this.aloneRunning--;
          this.startWaiting();
        });
    }
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    // Row locks (a user's stream positions) are taken in one order by every shared transaction, so two
    // of them never wait for each other; the sort is stable, so one user's publishes keep their order.
    batch.sort((a, b) => (a.lockOrder < b.lockOrder ? -1 : a.lockOrder > b.lockOrder ? 1 : 0));
    const signal = batch.length === 1 ? batch[0]!.signal : AbortSignal.any(batch.map((entry) => entry.signal));
    let workDone = false;
    try {
      const results = await this.db.transaction(
        async (tx) => {
          const severalUsers = batch.some((entry) => entry.lockOrder !== batch[0]!.lockOrder);
          const setUp = severalUsers ? tx.query(SHARED_LOCK_TIMEOUT) : Promise.resolve([]);
          const [setting, ...outcomes] = await Promise.allSettled([setUp, ...batch.map((entry) => entry.work(tx))]);
          if (setting!.status === "rejected") throw setting!.reason;
          if (outcomes.some((outcome) => outcome.status === "rejected")) throw new WorkFailed(outcomes);
          workDone = true;
          return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
        },
        { signal },
      );
      for (const [index, entry] of batch.entries()) entry.resolve(results[index]);
    } catch (error) {
      this.settleFailed(batch, signal, error, error instanceof WorkFailed || (workDone && signal.aborted && error === signal.reason));
    }
  }

  /**
   * A shared transaction failed. If it failed with the storage, or after its COMMIT was sent (the
   * outcome unknown), every publish of it answers that, as it would have alone: running them again
   * could commit them twice. If it rolled back for a reason of some of its publishes (a user being
   * erased, an importer's receipt, a lock held elsewhere, a deadline), those run again alone, so
   * only their own failure answers them, and the others go back to the head of the queue.
   */
  private settleFailed(batch: Waiting[], signal: AbortSignal, error: unknown, rolledBack: boolean): void {
    const outcomes = error instanceof WorkFailed ? error.outcomes : [];
    const failures = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
    const outage = failures.find((failure) => failure instanceof StorageUnavailableError && !isLockTimeout(failure));
    if (!rolledBack || outage !== undefined) {
      for (const entry of batch) entry.reject(outage ?? error);
      return;
    }
    const isInnocent = (entry: Waiting, index: number) => {
      const outcome = outcomes[index];
      if (entry.signal.aborted) return false;
      return outcome === undefined || outcome.status === "fulfilled" || isAfterEarlierFailure(outcome.reason) || outcome.reason === signal.reason;
    };
    // Every round removes at least one publish from the queue, or none goes back to it.
    const blameless = batch.every(isInnocent);
    const requeued: Waiting[] = [];
    for (const [index, entry] of batch.entries()) {
      const outcome = outcomes[index];
      const ownFailure = outcome?.status === "rejected" ? outcome.reason : error;
      if (!blameless && isInnocent(entry, index)) requeued.push(entry);
      // Alone already: only the same failure could come again, unless the shared lock timeout made it.
      else if (batch.length === 1 && !isLockTimeout(ownFailure)) entry.reject(ownFailure);
      else this.waitingAlone.push(entry);
    }
    this.waiting.unshift(...requeued);
    // Both queues start again when this transaction ends (runBatch's caller), its connection back.
  }
}

/** Up to `count` entries off the head of `queue`; those past their deadline (answered already) are refused on the way. */
function takeUnexpired(queue: Waiting[], count: number): Waiting[] {
  const taken: Waiting[] = [];
  while (taken.length < count && queue.length > 0) {
    const entry = queue.shift()!;
    if (entry.signal.aborted) entry.reject(entry.signal.reason);
    else taken.push(entry);
  }
  return taken;
}
