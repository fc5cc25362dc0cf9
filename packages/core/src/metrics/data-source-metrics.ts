import { type CollectionStateFigures, type CollectionTraceCount, collectionFigures, type Database } from "@als/db";
import { Gauge, type Registry } from "prom-client";
import { collectionStateName } from "../data-sources/collection/collection-status.ts";
import { groupBy } from "../group-by.ts";
import { scrapeRead } from "./scrape-read.ts";

interface Figures {
  states: CollectionStateFigures[];
  traces: CollectionTraceCount[];
}

/**
 * Registers the trace-provider collections' gauges, read from the database when scraped: how many
 * collections each provider has in each state (and failing), their backfill pages, their held
 * records, and the traces they counted per phase and outcome. Labels are the provider, the state,
 * the phase and the outcome, all from the code; no organisation, project or stream is named.
 */
export function registerDataSourceMetrics(registry: Registry, db: Database): void {
  const figures = scrapeRead<Figures>(async () => {
    const [states, traces] = await Promise.all([collectionFigures.collectionStateFigures(db), collectionFigures.collectionTraceCounts(db)]);
    return { states, traces };
  });
  new Gauge({
    name: "als_data_source_read_ok",
    help: "1 when the scrape read the collections' figures from the database in time, else 0 and those gauges are absent.",
    registers: [registry],
    async collect() {
      this.set((await figures()) ? 1 : 0);
    },
  });
  new Gauge({
    name: "als_data_source_collections",
    help: "Trace-provider collections by provider and state (backfilling, collecting, paused, stopped).",
    labelNames: ["provider", "state"] as const,
    registers: [registry],
    async collect() {
      const read = await figures();
      this.reset();
      // Stored states (and backfill progress) to the state names the contract shows, several rows to one.
      const shown = groupBy(read?.states ?? [], (row) => `${row.provider} ${collectionStateName(row)}`);
      for (const rows of shown.values())
        this.set(
          { provider: rows[0]!.provider, state: collectionStateName(rows[0]!) },
          sum(rows, (row) => row.collections),
        );
    },
  });
  /** A gauge of one figure summed per provider. */
  const perProvider = (name: string, help: string, value: (row: CollectionStateFigures) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["provider"] as const,
      registers: [registry],
      async collect() {
        const read = await figures();
        this.reset();
        for (const [provider, rows] of groupBy(read?.states ?? [], (row) => row.provider)) this.set({ provider }, sum(rows, value));
      },
    });
  perProvider("als_data_source_collections_failing", "Collections whose last run ended with the provider's error, by provider.", (row) => row.failing);
  perProvider("als_data_source_backfill_pages", "Pages of history the collections have read from their provider, by provider.", (row) => row.backfill_pages);
  new Gauge({
    name: "als_data_source_held_records",
    help: "Records held for a member's decision (status held) or queued for a retry (status queued), by provider.",
    labelNames: ["provider", "status"] as const,
    registers: [registry],
    async collect() {
      const read = await figures();
      this.reset();
      for (const [provider, rows] of groupBy(read?.states ?? [], (row) => row.provider)) {
        const queued = sum(rows, (row) => row.queued);
        this.set({ provider, status: "held" }, sum(rows, (row) => row.held) - queued);
        this.set({ provider, status: "queued" }, queued);
      }
    },
  });
  new Gauge({
    name: "als_data_source_traces",
    help: "Traces the existing collections counted, by provider, phase (backfill, live, retry) and outcome (read, imported, duplicates, held, excluded, spans_read, spans_bounded).",
    labelNames: ["provider", "phase", "outcome"] as const,
    registers: [registry],
    async collect() {
      const read = await figures();
      this.reset();
      for (const row of read?.traces ?? []) this.set({ provider: row.provider, phase: row.phase, outcome: row.outcome }, row.total);
    },
  });
}

const sum = (rows: CollectionStateFigures[], value: (row: CollectionStateFigures) => number) => rows.reduce((total, row) => total + value(row), 0);
