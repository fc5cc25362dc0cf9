import { type Database, vectorOutbox } from "@als/db";
import type { VectorIndex } from "@als/vector";
import { Gauge, type Registry } from "prom-client";
import { ChangeLogFollower } from "../vector-sync/change-log-follower.ts";
import { scrapeRead } from "./scrape-read.ts";

/**
 * Registers the vector index's gauges. The in-process graph (ChangeLogFollower) reports its points
 * per collection, whether it serves searches, and how long ago it last read the change log through
 * (its catch-up lag); an index kept in step through the outbox (Qdrant) reports the changes still
 * waiting to be pushed to it. Without a vector index (pgvector in the database) there is nothing
 * apart from the record to report.
 */
export function registerVectorIndexMetrics(registry: Registry, db: Database, index: VectorIndex | undefined): void {
  if (index instanceof ChangeLogFollower) {
    new Gauge({
      name: "als_vector_index_points",
      help: "Points the in-process vector index holds, by collection (over every project).",
      labelNames: ["collection"] as const,
      registers: [registry],
      collect() {
        for (const [collection, points] of Object.entries(index.status().points)) this.set({ collection }, points);
      },
    });
    new Gauge({
      name: "als_vector_index_serving",
      help: "1 when the in-process vector index serves searches; 0 before its first catch-up and while it rebuilds (PostgreSQL serves them then).",
      registers: [registry],
      collect() {
        this.set(index.status().serving ? 1 : 0);
      },
    });
    new Gauge({
      name: "als_vector_index_follow_age_seconds",
      help: "Seconds since the in-process vector index last read the change log through (about 1 s while healthy; absent before the first read).",
      registers: [registry],
      collect() {
        const age = index.status().followedSecondsAgo;
        this.reset();
        if (age !== null) this.set(age);
      },
    });
    return;
  }
  if (index === undefined) return;
  const pending = scrapeRead(() => vectorOutbox.countPending(db));
  new Gauge({
    name: "als_vector_outbox_pending",
    help: "Changes of the record not yet pushed to the vector index (Qdrant); absent when the database did not answer in time.",
    registers: [registry],
    async collect() {
      const count = await pending();
      this.reset();
      if (count !== undefined) this.set(count);
    },
  });
}
