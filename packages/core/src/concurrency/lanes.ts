/** What Lanes are built with. */
export interface LanesOptions<K> {
  /** How many lanes may run at once; read each time lanes start (a setting a test may change). */
  concurrency: () => number;
  /** The work of one key; a key is run by one lane at a time. */
  run: (key: K) => Promise<void>;
  /** Where a run that failed is reported; its lane goes on with the next key. */
  onError: (error: unknown) => void;
}

/**
 * Keyed work run by at most `concurrency` lanes, each taking the first queued key no lane is running,
 * one key at a time, until none is left (first queued, first run). A key queued while a lane runs it
 * stays queued until that run ends and is then run again, so work asked for during a run is never
 * lost nor run twice at once; a key queued twice before it starts runs once.
 */
export class Lanes<K> {
  private readonly queued = new Set<K>();
  private readonly inLane = new Set<K>();
  private readonly lanes = new Set<Promise<void>>();

  constructor(private readonly options: LanesOptions<K>) {}

  /** Lanes running now. */
  get running(): number {
    return this.lanes.size;
  }

  /** Queues `key` without starting a lane (see start). */
  queue(key: K): void {
    this.queued.add(key);
  }

  /** Queues `key` and starts a lane for it if one may start. */
  request(key: K): void {
    this.queue(key);
    this.start();
  }

  /** Starts lanes, up to the concurrency, while a queued key is not being run. */
  start(): void {
    const limit = this.options.concurrency();
    // A lane takes its first key synchronously, so a started lane leaves one key fewer to take.
    while (this.lanes.size < limit && this.next() !== undefined) {
      const lane: Promise<void> = this.drain().finally(() => this.lanes.delete(lane));
      this.lanes.add(lane);
    }
  }

  /** Resolves when no lane runs (lanes started meanwhile included). */
  async drained(): Promise<void> {
    while (this.lanes.size > 0) await Promise.all(this.lanes);
  }

  private async drain(): Promise<void> {
    for (let key = this.take(); key !== undefined; key = this.take()) {
      this.inLane.add(key);
      try {
        await this.options.run(key);
      } catch (error) {
        this.options.onError(error);
      } finally {
        this.inLane.delete(key);
      }
    }
  }

  /** The first queued key no lane is running now. */
  private next(): K | undefined {
    for (const key of this.queued) if (!this.inLane.has(key)) return key;
    return undefined;
  }

  private take(): K | undefined {
    const key = this.next();
    if (key !== undefined) this.queued.delete(key);
    return key;
  }
}
