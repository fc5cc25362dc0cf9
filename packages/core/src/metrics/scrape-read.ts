import { withinDeadline } from "../concurrency/deadline.ts";

/** A scrape waits at most this long for the database; past it the figures read are left out. */
const READ_DEADLINE_MS = 2_000;
/**
 * Scrapes this close together share one read: several Prometheus servers (or a dashboard's
 * refreshes) must not multiply the queries.
 */
const READ_REUSE_MS = 5_000;

/**
 * `read` as the gauges of one scrape call it: each gauge's collect asks, the first ask of a scrape
 * reads, the rest share it; undefined when the read failed or took longer than the deadline, so a
 * slow database leaves those gauges out of the scrape rather than holding it.
 */
export function scrapeRead<T>(read: () => Promise<T>): () => Promise<T | undefined> {
  let last: { at: number; value: Promise<T | undefined> } | undefined;
  return () => {
    const at = performance.now();
    if (last && at - last.at < READ_REUSE_MS) return last.value;
    const value = withinDeadline(read(), at + READ_DEADLINE_MS).catch(() => undefined);
    last = { at, value };
    return value;
  };
}
