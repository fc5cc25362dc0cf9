import { type Database, type RankedQuery, type RankedScores, rankedArmDepth, type Scope } from "@als/db";
import type { Collection, VectorFilter, VectorIndex } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { RequestTimings } from "../request-timings.ts";
import { withCommonLexemes } from "./common-lexemes.ts";
import { fuseByScore } from "./score-fusion.ts";

/** One searchable table as ranked search sees it, with `F` its filters and `Id` its row ids. */
export interface RankedTable<R, F, Id extends string | number> {
  collection: Collection;
  /** Both arms in one SQL query, fused there (packages/db). */
  searchInDatabase(db: Database, scope: Scope, filters: F, query: RankedQuery): Promise<(R & RankedScores)[]>;
  /** The rows of these ids that pass the filters, in any order. */
  readByIds(db: Database, scope: Scope, filters: F, ids: Id[]): Promise<R[]>;
  /**
   * The same filters for the vector index; throws on a filter it cannot express, never drops it.
   * Null: the index holds no payload for some of these filters, so the search runs in PostgreSQL,
   * which holds the vectors too.
   */
  vectorFilter(scope: Scope, filters: F): VectorFilter | null;
  idOf(row: R): Id;
  idOfPoint(pointId: string): Id;
}

/**
 * Ranks a table's rows for a planned query. Without a vector index, without a vector arm, or with
 * filters the index has no payload for, both arms run in PostgreSQL. With one, the vector arm asks the index under the same filters, the text
 * arm stays in PostgreSQL, and the two are fused here by the same weights; the rows are then read from
 * PostgreSQL by id under the filters again, so a row deleted or changed since its last sync to the
 * index is never served.
 *
 * Timed in `timings` under the table's collection name ("sql" or "index"); through the index also
 * its parts, `<collection>.vector`, `.text` and `.read`, so an operator sees which one is slow.
 */
export async function rankedRows<R, F, Id extends string | number>(
  deps: Pick<CoreDeps, "db" | "vectorIndex" | "now">,
  scope: Scope,
  table: RankedTable<R, F, Id>,
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
    async () => rankedThroughIndex(deps, scope, table, filters, { ...(await query()), queryVector: vector }, index, filter, timings),
    "index",
  );
}

/** rankedRows through the vector index: its vector arm, the text arm in PostgreSQL, fused here, rows read by id. */
async function rankedThroughIndex<R, F, Id extends string | number>(
  deps: Pick<CoreDeps, "db">,
  scope: Scope,
  table: RankedTable<R, F, Id>,
  filters: F,
  query: RankedQuery & { queryVector: number[] },
  index: VectorIndex,
  filter: VectorFilter,
  timings: RequestTimings,
): Promise<R[]> {
  const stage = table.collection;
  const depth = rankedArmDepth(query.topK);
  const [nearest, matching] = await Promise.all([
    timings.time(`${stage}.vector`, () =>
      index.search(table.collection, {
        vector: query.queryVector,
        filter: { ...filter, must: [...filter.must, { key: "embedding_model", equals: query.embeddingModel }] },
        topK: depth,
        threshold: query.threshold,
      }),
    ),
    query.mode === "hybrid" && query.queryText
      ? timings.time(`${stage}.text`, () => table.searchInDatabase(deps.db, scope, filters, { ...query, mode: "fts", topK: depth }))
      : Promise.resolve([]),
  ]);
  const fused = fuseByScore(
    nearest.map((hit) => ({ id: table.idOfPoint(hit.id), similarity: hit.similarity })),
    matching.map((row) => ({ id: table.idOf(row), textScore: row.text_score ?? 0 })),
    query.similarityFloor,
  );
  const read = await timings.time(`${stage}.read`, () => table.readByIds(deps.db, scope, filters, fused));
  const rows = new Map(read.map((row) => [table.idOf(row), row]));
  return fused.flatMap((id) => rows.get(id) ?? []).slice(0, query.topK);
}
