/** Gives a taken slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  deadline: number;
  grant: (release: Release) => void;
  leave: () => void;
}

/** How a wait for a slot may end early, besides its deadline. */
export interface TakeOptions {
  /** Aborted: the waiter gives its place up (its caller has been answered already). */
  signal?: AbortSignal;
  /** When (performance.now()) the wait ends empty-handed, if before the deadline; default the deadline. */
  giveUpAt?: number;
}

/**
 * A counting semaphore: at most `capacity` slots taken, the rest wait in the order they came, each
 * until its deadline. A released slot passes straight to the first waiter, so a newcomer never
 * overtakes the queue. The admission policies (publish, search) are built on it.
 */
export class Slots {
  private takenCount = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly capacity: number) {}

  /** Slots taken now (a slot handed to a waiter stays taken). */
  get taken(): number {
    return this.takenCount;
  }

  /** Callers waiting for a slot now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Whether a take now would get a slot without waiting. */
  get free(): boolean {
    return this.takenCount < this.capacity;
  }

  /**
   * A slot's release function, at once when one is free, else when one comes free before `deadline`
   * (performance.now()); undefined when none did by then (or by `giveUpAt`), when `signal` aborted,
   * or when `dismiss` picked the waiter.
   */
  take(deadline: number, options: TakeOptions = {}): Promise<Release | undefined> {
    if (this.free) {
      this.takenCount++;
      return Promise.resolve(this.releaser());
    }
    const { signal, giveUpAt = deadline } = options;
    return new Promise((resolve) => {
      const abandon = () => waiter.leave();
      const waiter: Waiter = {
        deadline,
        grant: (release) => {
          this.remove(waiter, timer, signal, abandon);
          resolve(release);
        },
        leave: () => {
          this.remove(waiter, timer, signal, abandon);
          resolve(undefined);
        },
      };
      signal?.addEventListener("abort", abandon, { once: true });
      const timer = setTimeout(waiter.leave, Math.max(0, giveUpAt - performance.now()));
      this.queue.push(waiter);
    });
  }

  /**
   * Ends empty-handed the wait of every waiter `leaves(position, deadline)` picks, from the back of
   * the queue to its front (`position` 0 is the next to get a slot; positions are those before any
   * of this call's waiters left).
   */
  dismiss(leaves: (position: number, deadline: number) => boolean): void {
    for (let position = this.queue.length - 1; position >= 0; position--) {
      const waiter = this.queue[position]!;
      if (leaves(position, waiter.deadline)) waiter.leave();
    }
  }

  private remove(waiter: Waiter, timer: ReturnType<typeof setTimeout>, signal: AbortSignal | undefined, abandon: () => void): void {
    clearTimeout(timer);
    signal?.removeEventListener("abort", abandon);
    const index = this.queue.indexOf(waiter);
    if (index !== -1) this.queue.splice(index, 1);
  }

  private releaser(): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so the count stays taken.
      const next = this.queue[0];
      if (next) next.grant(this.releaser());
      else this.takenCount--;
    };
  }
}
