/**
 * A key's signal: waiting its turn, being sent, resting after a send (the key's next signal waits
 * until the rest is over), or waiting to be retried after a failed send.
 */
interface Pending<T> {
  item: T;
  phase: "queued" | "sending" | "resting" | "retrying";
  /** Asked for again while being sent or resting: what was committed since is not covered yet. */
  again: boolean;
  failures: number;
}

export interface CoalescedSignalsOptions<T> {
  send: (item: T) => Promise<void>;
  /** Items with the same key share one signal. */
  keyOf: (item: T) => string;
  /** Signals being sent at once, at most. */
  concurrency: number;
  /** A key's signals are at least this far apart: the requests in between share the next one. */
  minIntervalMs: number;
  /** The wait before each retry of a failed send; after the last, the signal is given up (reported by `onError`). */
  retryDelaysMs: readonly number[];
  onError: (item: T, error: unknown, givenUp: boolean) => void;
  /** Called just before each send (a crash point for the tests). */
  beforeSend?: () => void;
}

/**
 * Signals sent after the caller's work committed, without the caller waiting for them, at most one
 * per key at a time and one per key per `minIntervalMs`. A request made while its key's signal
 * waits its turn rides with that signal (sent after the request's commit); one made while the
 * key's signal is being sent, or within the interval after it, gets one more signal, sent when the
 * interval is over, for every request made meanwhile. So a publish never waits for the
 * orchestrator, and a burst of publishes for one user costs one signal per interval, not one each.
 *
 * What it holds is in memory: a process killed with signals still pending leaves them to the
 * start-up sweep of the next process (composeService), which signals every user with uncovered
 * interactions.
 */
export class CoalescedSignals<T> {
  private readonly pending = new Map<string, Pending<T>>();
  private readonly queue: string[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private readonly idleWaiters: (() => void)[] = [];
  private sending = 0;
  private closed = false;
  /** Signals sent so far (the bench reports how many publishes shared each). */
  sent = 0;

  constructor(private readonly options: CoalescedSignalsOptions<T>) {}

  /** Asks for a signal for `item`'s key, sent after this call; returns at once. */
  request(item: T): void {
    if (this.closed) return;
    const key = this.options.keyOf(item);
    const waiting = this.pending.get(key);
    if (!waiting) {
      this.pending.set(key, { item, phase: "queued", again: false, failures: 0 });
      this.queue.push(key);
      this.pump();
    } else if (waiting.phase === "sending" || waiting.phase === "resting") {
      waiting.again = true;
    }
    // Queued or retrying: that signal is sent after this request, and covers it.
  }

  /** How many keys have a signal not yet sent (or resting after one). */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Stops taking requests and waits up to `waitMs` for the signals still owed to be sent (a rest
   * is cut short; a signal waiting for a retry is given up). Returns how many keys were left unsent.
   */
  async close(waitMs: number): Promise<number> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    let givenUp = 0;
    for (const [key, waiting] of this.pending) {
      if (waiting.phase === "retrying") {
        this.pending.delete(key);
        givenUp++;
      } else if (waiting.phase === "resting") {
        this.settle(key, waiting);
      }
    }
    if (this.pending.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, waitMs);
        }),
      ]);
      clearTimeout(timer);
    }
    return this.pending.size + givenUp;
  }

  private pump(): void {
    while (this.sending < this.options.concurrency && this.queue.length > 0) {
      const key = this.queue.shift()!;
      const waiting = this.pending.get(key)!;
      waiting.phase = "sending";
      waiting.again = false;
      this.sending++;
      this.options.beforeSend?.();
      this.options.send(waiting.item).then(
        () => this.delivered(key, waiting),
        (error: unknown) => this.failed(key, waiting, error),
      );
    }
  }

  private delivered(key: string, waiting: Pending<T>): void {
    this.sending--;
    this.sent++;
    waiting.failures = 0;
    if (this.closed) this.settle(key, waiting);
    else {
      waiting.phase = "resting";
      this.after(this.options.minIntervalMs, () => this.settle(key, waiting));
    }
    this.pump();
  }

  private failed(key: string, waiting: Pending<T>, error: unknown): void {
    this.sending--;
    const delay = this.closed ? undefined : this.options.retryDelaysMs[waiting.failures];
    waiting.failures++;
    this.options.onError(waiting.item, error, delay === undefined);
    if (delay === undefined) {
      waiting.failures = 0;
      this.settle(key, waiting);
    } else {
      // The retry is sent after every commit so far, so requests made meanwhile ride with it.
      waiting.phase = "retrying";
      this.after(delay, () => this.requeue(key, waiting));
    }
    this.pump();
  }

  /** After a send's rest (or giving a send up): once more if asked for meanwhile, else done with the key. */
  private settle(key: string, waiting: Pending<T>): void {
    if (waiting.again) this.requeue(key, waiting);
    else this.pending.delete(key);
    if (this.pending.size === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private requeue(key: string, waiting: Pending<T>): void {
    waiting.phase = "queued";
    this.queue.push(key);
    this.pump();
  }

  private after(delayMs: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      then();
    }, delayMs);
    this.timers.add(timer);
  }
}
