import { type Database, type RankedQuery, type RankedScores, rankedArmDepth, type Scope } from "@als/db";
import type { Collection, VectorFilter } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { RequestTimings } from "../request-timings.ts";
import { withCommonLexemes } from "./common-lexemes.ts";

/** One searchable table as ranked search sees it, with `F` its filters. */
export interface RankedTable<R, F> {
  collection: Collection;
  /** Both arms in one SQL query, fused there (packages/db). */
  searchInDatabase(db: Database, scope: Scope, filters: F, query: RankedQuery): Promise<(R & RankedScores)[]>;
  /**
   * The same filters for the vector index; throws on a filter it cannot express, never drops it.
   * Null: the index holds no payload for some of these filters, so the search runs in PostgreSQL,
   * which holds the vectors too.
   */
  vectorFilter(scope: Scope, filters: F): VectorFilter | null;
}

/**
 * Ranks a table's rows for a planned query. Without a vector index, without a vector arm, or with
 * filters the index has no payload for (or leaves to PostgreSQL), both arms run in PostgreSQL. With
 * one, the index finds the vector arm's rows under the same filters, and one statement in
 * PostgreSQL reads them again under the filters (so a row deleted or changed since its last sync
 * to the index is never served), runs the text arm and fuses both, as it would its own HNSW scan.
 *
 * Timed in `timings` under the table's collection name ("sql" or "index"); through the index also
 * its parts, `<collection>.vector` and `.sql`, so an operator sees which one is slow.
 */
export async function rankedRows<R, F>(
  deps: Pick<CoreDeps, "db" | "services" | "vectorIndex" | "now">,
  scope: Scope,
  table: RankedTable<R, F>,
  filters: F,
  planned: Omit<RankedQuery, "commonLexemes">,
  timings = new RequestTimings(),
): Promise<R[]> {
  const index = deps.vectorIndex;
  const wanted = index && planned.mode !== "fts" && planned.queryVector ? table.vectorFilter(scope, filters) : null;
  const filter = wanted && index?.serves?.(table.collection, wanted) !== false ? wanted : null;
  const stage = table.collection;
  const query = () => withCommonLexemes(deps, stage, planned);
  if (!index || !planned.queryVector || filter === null)
    return timings.time(stage, async () => table.searchInDatabase(deps.db, scope, filters, await query()), "sql");
  const vector = planned.queryVector;
  return timings.time(
    stage,
    async () => {
      const [nearest, ready] = await Promise.all([
        timings.time(`${stage}.vector`, () =>
          index.search(table.collection, {
            vector,
            filter: { ...filter, must: [...filter.must, { key: "embedding_model", equals: planned.embeddingModel }] },
            topK: rankedArmDepth(planned.topK),
            threshold: planned.threshold,
          }),
        ),
        query(),
      ]);
      const nearestFound = { ids: nearest.map((hit) => hit.id), similarities: nearest.map((hit) => hit.similarity) };
      return timings.time(`${stage}.sql`, () => table.searchInDatabase(deps.db, scope, filters, { ...ready, nearestFound }));
    },
    "index",
  );
}
