/** One measured stage of a request: how long it took and, optionally, which way it went ("sql", "miss"). */
export interface Stage {
  name: string;
  ms: number;
  desc?: string;
}

/**
 * The stages of one request and how long each took, for operators (the Server-Timing header and the
 * debug request log line), never part of a response body. The server makes one per request and the
 * search code records into the one it is handed, so concurrent requests cannot mix their figures.
 *
 * A stage recorded again under the same name keeps its longest duration and its first description:
 * branches running side by side that wait for the same work (the three entity searches of a unified
 * search waiting for its one query embedding) report that work's wall time once, not its sum.
 */
export class RequestTimings {
  private readonly stages = new Map<string, Stage>();

  /** Runs `work` as stage `name`; it is recorded whether `work` succeeds or throws. */
  async time<T>(name: string, work: () => Promise<T>, desc?: string): Promise<T> {
    const startedAt = performance.now();
    try {
      return await work();
    } finally {
      this.record(name, performance.now() - startedAt, desc);
    }
  }

  /** Records stage `name` as lasting from `startedAt` (a performance.now() reading) until now. */
  since(name: string, startedAt: number, desc?: string): void {
    this.record(name, performance.now() - startedAt, desc);
  }

  /** The stages in the order they were first recorded. */
  list(): Stage[] {
    return [...this.stages.values()];
  }

  private record(name: string, ms: number, desc: string | undefined): void {
    const earlier = this.stages.get(name);
    if (earlier) earlier.ms = Math.max(earlier.ms, ms);
    else this.stages.set(name, { name, ms, ...(desc !== undefined && { desc }) });
  }
}
