/**
 * Runs work one at a time, lowest rank first among those waiting (equal ranks in the order they
 * came). Each turn first lets the event loop run (setImmediate), so timers and sockets are served
 * between turns, and work whose `signal` aborted meanwhile is skipped: it rejects with the signal's
 * reason instead of running.
 */
export class RankedTurns {
  private busy = false;
  /** Waiting work, lowest rank first. */
  private readonly waiting: { rank: number; turn: () => void }[] = [];

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
