import type { Sql } from "../driver.ts";
import type { BackfillStatus } from "./data-source-collections.ts";

/** Collections of one provider in one stored state, with their backfill pages, failures and held records. */
export interface CollectionStateFigures {
  provider: string;
  state: "active" | "paused" | "stopped";
  backfill_status: BackfillStatus;
  collections: number;
  backfill_pages: number;
  /** Collections whose last run ended with the provider's error. */
  failing: number;
  /** Held records, and those of them queued for a retry. */
  held: number;
  queued: number;
}

/** Traces of one provider's collections counted in one phase under one outcome (read, imported, held…). */
export interface CollectionTraceCount {
  provider: string;
  phase: string;
  outcome: string;
  total: number;
}

/**
 * Every organisation's collections summed by provider and stored state, for the metrics scrape:
 * a handful of rows however many collections there are.
 */
export async function collectionStateFigures(sql: Sql): Promise<CollectionStateFigures[]> {
  return sql.query<CollectionStateFigures>(
    `SELECT c.provider, c.state, c.backfill_status, count(*)::int AS collections, sum(c.backfill_pages)::float8 AS backfill_pages,
            count(*) FILTER (WHERE c.last_error_code IS NOT NULL)::int AS failing,
            coalesce(sum(h.held), 0)::int AS held, coalesce(sum(h.queued), 0)::int AS queued
       FROM data_source_collections c
       LEFT JOIN (SELECT stream_id, count(*) AS held, count(*) FILTER (WHERE status = 'queued') AS queued FROM data_source_held GROUP BY stream_id) h
         ON h.stream_id = c.stream_id
      GROUP BY c.provider, c.state, c.backfill_status`,
  );
}

/** The collections' per-phase counts (collection.counts) summed by provider, phase and outcome. */
export async function collectionTraceCounts(sql: Sql): Promise<CollectionTraceCount[]> {
  return sql.query<CollectionTraceCount>(
    `SELECT c.provider, phase.key AS phase, outcome.key AS outcome, sum(outcome.value::bigint)::float8 AS total
       FROM data_source_collections c, jsonb_each(c.counts) AS phase, jsonb_each_text(phase.value) AS outcome
      GROUP BY c.provider, phase.key, outcome.key`,
  );
}
