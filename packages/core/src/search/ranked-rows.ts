import { type Database, FUSION, type FusedFound, type RankedQuery, type RankedScores, rankedArmDepth, type Scope } from "@als/db";
import type { Collection, TextArm, TextRanking, VectorFilter, VectorHit, VectorIndex } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import type { RequestTimings } from "../request-timings.ts";
import { inVectorSpan, vectorEngineOf } from "../tracing/vector-spans.ts";
import { withCommonLexemes } from "./common-lexemes.ts";
import { type PlannedSearch, withQueryVector } from "./query-plan.ts";
import type { SearchContext } from "./search-context.ts";

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
 * Ranks a table's rows for a planned query, with the search's database and vector index. Without a vector index, without a vector arm, or with
 * filters the index has no payload for (or leaves to PostgreSQL), both arms run in PostgreSQL. With
 * one, the index finds the vector arm's rows under the same filters, and one statement in
 * PostgreSQL reads them again under the filters (so a row deleted or changed since its last sync
 * to the index is never served), runs the text arm and fuses both, as it would its own HNSW scan.
 *
 * Timed in the search's timings under the table's collection name ("sql" or "index"); through the index also
 * its parts, `<collection>.vector` and `.sql`, so an operator sees which one is slow.
 */
export async function rankedRows<R, F>(
  deps: Pick<CoreDeps, "services" | "now">,
  search: SearchContext,
  scope: Scope,
  table: RankedTable<R, F>,
  filters: F,
  pending: PlannedSearch,
): Promise<R[]> {
  const { db, timings, vectorIndex: index } = search;
  const inMemory = index?.text && pending.mode !== "vector" && pending.queryText ? table.vectorFilter(scope, filters) : null;
  if (index?.text && inMemory && index.text.serves(table.collection, inMemory))
    return rankedInMemory(deps, db, { scope, table, filters, filter: inMemory, planned: pending, index, text: index.text }, timings);
  const planned = await withQueryVector(pending);
  const wanted = index && planned.mode !== "fts" && planned.queryVector ? table.vectorFilter(scope, filters) : null;
  const filter = wanted && index?.serves?.(table.collection, wanted) !== false ? wanted : null;
  const stage = table.collection;
  const query = () => withCommonLexemes(deps, stage, planned);
  if (!index || !planned.queryVector || filter === null) {
    const inDatabase = async () => table.searchInDatabase(db, scope, filters, await query());
    // PostgreSQL runs the vector arm inside the ranked statement (pgvector's HNSW scan).
    const ranked = planned.queryVector && planned.mode !== "fts" ? () => inVectorSpan("search", "pgvector", table.collection, inDatabase) : inDatabase;
    return timings.time(stage, ranked, "sql");
  }
  const vector = planned.queryVector.values;
  return timings.time(
    stage,
    async () => {
      const [nearest, ready] = await Promise.all([
        timings.time(`${stage}.vector`, () =>
          inVectorSpan("search", vectorEngineOf(index), table.collection, () =>
            index.search(table.collection, {
              vector,
              filter: { ...filter, must: [...filter.must, { key: "embedding_model", equals: planned.embeddingModel }] },
              topK: rankedArmDepth(planned.topK),
              threshold: planned.threshold,
            }),
          ),
        ),
        query(),
      ]);
      const nearestFound = { ids: nearest.map((hit) => hit.id), similarities: nearest.map((hit) => hit.similarity) };
      return timings.time(`${stage}.sql`, () => table.searchInDatabase(db, scope, filters, { ...ready, nearestFound }));
    },
    "index",
  );
}

/**
 * Both arms in the process (the in-process index, in both modes): the vector
 * arm from the graph, the text arm from the text index (which scores as the SQL arm does), fused by
 * FUSION as rankedSearchSql fuses them. Ranking the vector arm's rows and the text arm's best gives
 * the statement's top rows: it leaves out only rows that could not reach them. The text index
 * returns those rows as it holds them, caught up with every write committed before the search; when
 * it no longer holds one as found, one statement reads them again under the filters.
 */
async function rankedInMemory<R, F>(
  deps: Pick<CoreDeps, "services" | "now">,
  db: Database,
  search: {
    scope: Scope;
    table: RankedTable<R, F>;
    filters: F;
    filter: VectorFilter;
    planned: PlannedSearch;
    index: VectorIndex;
    text: TextArm;
  },
  timings: RequestTimings,
): Promise<R[]> {
  const { scope, table, filters, filter, planned, index, text } = search;
  const stage = table.collection;
  // The fused rows are fetched by id: the statement needs no vector.
  const { queryVector: embedding, ...query } = planned;
  const queryVector = planned.mode === "hybrid" ? embedding : undefined;
  return timings.time(
    stage,
    async () => {
      // The text arm needs no vector: it runs while the query embeds, on a thread the embedding leaves free.
      const [nearest, textRanking] = await Promise.all([
        queryVector
          ? queryVector.then(({ values: vector }) =>
              timings.time(`${stage}.vector`, () =>
                inVectorSpan("search", "in-process", table.collection, () =>
                  index.search(table.collection, {
                    vector,
                    filter: { ...filter, must: [...filter.must, { key: "embedding_model", equals: planned.embeddingModel }] },
                    topK: rankedArmDepth(planned.topK),
                    threshold: planned.threshold,
                  }),
                ),
              ),
            )
          : ([] as VectorHit[]),
        timings.time(`${stage}.text`, async () => {
          const [{ commonLexemes }, words] = await Promise.all([withCommonLexemes(deps, stage, query), text.words(planned.queryText!)]);
          // The vector arm's rows are scored apart (scoreOf), so fusion's best topK rows are among
          // the text arm's best topK + the vector arm's depth.
          return text.search(table.collection, { filter, words, common: commonLexemes, best: planned.topK + rankedArmDepth(planned.topK) });
        }),
      ]);
      const fusedFound = fuse(nearest, textRanking, planned.similarityFloor, planned.topK);
      // The rows as the index holds them, with no statement (embedded, PGlite's on the event loop's
      // thread were the largest share of a search's work beside the embedding); the database's when
      // one changed since the arms ran.
      const held = text.returnedRows(table.collection, filter, fusedFound.ids);
      if (held) return held.map((row, at) => withScores(row as R, fusedFound, at));
      return timings.time(`${stage}.sql`, () => table.searchInDatabase(db, scope, filters, { ...query, commonLexemes: [], fusedFound }));
    },
    "memory",
  );
}

/** A row with the scores fusion gave it, as the statement that reads fused rows returns them. */
function withScores<R>(row: R, found: FusedFound, at: number): R & RankedScores {
  return { ...row, score: found.scores[at]!, similarity: found.similarities[at] ?? null, text_score: found.textScores[at] ?? null };
}

/** The best `topK` rows of both arms by FUSION's weights, computed as rankedSearchSql computes them (float8). */
function fuse(nearest: readonly VectorHit[], text: TextRanking, floor: number, topK: number): FusedFound {
  // A text-only row's score is its text score's share alone; a row the vector arm found is scored
  // with its text score, asked of the text arm by id (it need not be among the text arm's best).
  const similarityOf = new Map<string, number>();
  for (const hit of nearest) similarityOf.set(hit.id, hit.similarity);
  const top: { id: string; similarity: number | null; textScore: number | null; score: number }[] = [];
  const before = (score: number, id: string, other: (typeof top)[number]) => score > other.score || (score === other.score && compareIds(id, other.id) < 0);
  const rank = (id: string, similarity: number | null, textScore: number | null) => {
    const relevance = similarity === null || floor === 1 ? 0 : Math.max(similarity - floor, 0) / (1 - floor);
    const score = FUSION.vector * relevance + FUSION.text * (textScore ?? 0);
    if (top.length === topK && (topK === 0 || !before(score, id, top[topK - 1]!))) return;
    let at = top.length;
    while (at > 0 && before(score, id, top[at - 1]!)) at--;
    top.splice(at, 0, { id, similarity, textScore, score });
    if (top.length > topK) top.pop();
  };
  // The vector arm's rows first: text-only rows tied at the text arm's last score (thousands, for a
  // common word) are then mostly turned away by their score alone, before any id is compared.
  for (const [id, similarity] of similarityOf) rank(id, similarity, text.scoreOf(id));
  for (const hit of text.hits) if (!similarityOf.has(hit.id)) rank(hit.id, null, hit.textScore);
  return {
    ids: top.map((row) => row.id),
    scores: top.map((row) => row.score),
    similarities: top.map((row) => row.similarity),
    textScores: top.map((row) => row.textScore),
  };
}

/** Numeric ids in number order, as the statement orders int8 ids; profile ids as text. */
function compareIds(a: string, b: string): number {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  return a < b ? -1 : a > b ? 1 : 0;
}
