import { type Database, type DurableWorkCount, type ProjectLearningLag, serviceBacklog } from "@als/db";
import { Gauge, type Registry } from "prom-client";
import { scrapeRead } from "./scrape-read.ts";

/** The longest-waiting projects read per scrape: enough for the distribution, bounded however many projects lag. */
const LAG_PROJECT_LIMIT = 10_000;
/** Upper bounds (seconds) of the lag distribution over projects: a minute, ten, an hour, the default inactivity delay, a day, a week. */
export const LAG_BUCKETS_S = [60, 600, 3_600, 21_600, 86_400, 604_800];

interface Backlog {
  work: DurableWorkCount[];
  lags: ProjectLearningLag[];
}

/**
 * Registers the backlog gauges, read from the database when scraped: learning lag (the oldest
 * request not yet learned from, the projects and users waiting, and how the projects spread over
 * lag buckets) and durable work by kind and status. No project or user is named: a label would
 * carry a tenant's name and grow with the tenants, so per-project lag is given as a distribution.
 * `now` is Unix seconds.
 */
export function registerBacklogMetrics(registry: Registry, db: Database, now: () => number): void {
  const backlog = scrapeRead<Backlog>(async () => {
    const [work, lags] = await Promise.all([serviceBacklog.countDurableWork(db), serviceBacklog.readLearningLag(db, LAG_PROJECT_LIMIT)]);
    return { work, lags };
  });

  new Gauge({
    name: "als_backlog_read_ok",
    help: "1 when the scrape read the backlog (learning lag, durable work) from the database in time, else 0 and those gauges are absent.",
    registers: [registry],
    async collect() {
      this.set((await backlog()) ? 1 : 0);
    },
  });
  new Gauge({
    name: "als_learning_lag_seconds",
    help: "Age of the oldest request not yet learned from, over all projects (0 when none waits).",
    registers: [registry],
    async collect() {
      const read = await backlog();
      this.reset();
      if (read) this.set(read.lags.length === 0 ? 0 : Math.max(0, now() - Number(read.lags[0]!.oldestAt)));
    },
  });
  new Gauge({
    name: "als_learning_waiting_projects",
    help: "Projects with requests not yet learned from, by the age of their oldest (cumulative: le is an upper bound in seconds).",
    labelNames: ["le"] as const,
    registers: [registry],
    async collect() {
      const read = await backlog();
      this.reset();
      if (!read) return;
      const ages = read.lags.map((lag) => now() - Number(lag.oldestAt));
      for (const bound of LAG_BUCKETS_S) this.set({ le: String(bound) }, ages.filter((age) => age <= bound).length);
      this.set({ le: "+Inf" }, ages.length);
    },
  });
  new Gauge({
    name: "als_learning_waiting_users",
    help: "Users with requests not yet learned from.",
    registers: [registry],
    async collect() {
      const read = await backlog();
      this.reset();
      if (read) this.set(read.lags.reduce((sum, lag) => sum + Number(lag.users), 0));
    },
  });
  new Gauge({
    name: "als_durable_work",
    help: "Durable work by kind and status: queued, running, retrying (waiting for its next try) and failed for good.",
    labelNames: ["kind", "status"] as const,
    registers: [registry],
    async collect() {
      const read = await backlog();
      this.reset();
      if (!read) return;
      // Every kind and status, 0 when none: an alert on a series that is absent until the first failure never fires.
      for (const kind of serviceBacklog.DURABLE_WORK_KINDS) for (const status of serviceBacklog.DURABLE_WORK_STATUSES) this.set({ kind, status }, 0);
      for (const { kind, status, count } of read.work) this.set({ kind, status }, Number(count));
    },
  });
}
