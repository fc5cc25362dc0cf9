import type { Sql } from "../driver.ts";
import type { Params, VectorParam } from "./params.ts";

export type SearchMode = "vector" | "fts" | "hybrid";

/**
 * How hybrid search fuses its arms: a row scores
 *   vector × its relevance + text × its text score,
 * each 0 where that arm did not find the row. The relevance is the cosine similarity rescaled from
 * the model's floor (where it puts unrelated texts: 0.1 for MiniLM, 0.7 for e5) to 1, so the
 * weights mean the same for models whose similarities span different ranges. The text score is ts_rank_cd normalised to [0, 1)
 * (rank / (rank + 1)), cut to `partialMatch` of itself unless the row holds every distinctive
 * word of the query: a paraphrase shares a stray word with many wrong rows, while a query for a
 * name or code matches its row whole. Chosen on bench/retrieval-quality.ts (labelled set v2):
 * reciprocal rank fusion put hybrid below the vector arm (agent playbooks MRR 0.71 against 0.82);
 * these weights keep hybrid at or above both arms on every kind and query style, for both local
 * models (0.7 / 0.3 did for MiniLM, but left e5's agent playbooks at MRR 0.72 against 0.74).
 */
export const FUSION = { vector: 0.8, text: 0.2, partialMatch: 0.25 } as const;

/** A row of a ranked search: its fused score and what each arm saw of it (null: not found by that arm). */
export interface RankedScores {
  score: number;
  similarity: number | null;
  text_score: number | null;
}

export interface RankedSearchSpec {
  table: string;
  idColumn: string;
  /** The id column's type, for ids bound as text (`nearestFound`). */
  idType: "text" | "int8";
  /** SQL condition over the table's columns (filters, scope); its values are already in `params`. */
  where: string;
  params: Params;
  mode: SearchMode;
  /** The query vector and the model that made it (vector and hybrid modes); rows of other models are skipped. */
  vector?: { query: VectorParam; model: string };
  /** The query text (fts and hybrid modes). */
  text?: string;
  /** The table's common lexemes (commonLexemes): the text arm leaves them out of the query. */
  commonLexemes: readonly string[];
  /** The vector arm keeps rows whose cosine similarity is above this. */
  threshold?: number;
  /** The model's floor, from which fusion rescales similarities (FUSION). */
  similarityFloor: number;
  topK: number;
  /** The vector arm as a vector index beside the database found it (see NearestFound): no HNSW walk here. */
  nearestFound?: NearestFound;
}

/**
 * Rows ranked and fused outside the statement (the in-process indexes), best first, with
 * their scores. The index answers them itself as it holds them; the statement reads them again under
 * its filters when it no longer holds one of them as found.
 */
export interface FusedFound {
  ids: string[];
  scores: number[];
  similarities: (number | null)[];
  textScores: (number | null)[];
}

/**
 * The nearest rows by a vector index outside the statement (the in-process graph, Qdrant), best
 * first, with their cosine similarities. The statement reads them again under its filters, so a
 * row deleted or changed since the index last saw it is never served.
 */
export interface NearestFound {
  ids: string[];
  similarities: number[];
}

/**
 * SQL that ranks the ids of `table` by the vector arm (HNSW, cosine), the full-text arm (GIN over
 * `search_text`) or both, fused by FUSION's weights. Filters sit inside each arm's query, so the
 * HNSW scan walks until it has enough rows that pass them rather than post-filtering a fixed
 * candidate list. Yields rows (id, score, similarity, text_score) best first.
 */
export function rankedSearchSql(spec: RankedSearchSpec): string {
  const { table, idColumn, where, params } = spec;
  const depth = rankedArmDepth(spec.topK);
  // Hybrid search scores the vector arm's rows by their text too: they carry their tsvector out.
  const carried = spec.mode === "hybrid" ? ", search_text" : "";
  const nearest =
    spec.mode === "fts"
      ? undefined
      : spec.nearestFound
        ? foundRowsSql(spec, spec.nearestFound, carried)
        : spec.vector
          ? `SELECT id, 1 - distance AS similarity${carried} FROM (${nearestSql(
              { table, idColumn, where: `${where} AND embedding_model = ${params.add(spec.vector.model)}`, params },
              { vector: spec.vector.query, threshold: spec.threshold, limit: depth, columns: carried },
            )}) nearest`
          : undefined;
  const text = spec.mode !== "vector" && spec.text ? { query: params.add(spec.text), common: params.add(spec.commonLexemes) } : undefined;
  if (nearest === undefined && text === undefined) throw new Error("rankedSearchSql needs a query vector or a query text for its mode");
  const floor = params.add(spec.similarityFloor);
  const relevance = `greatest(similarity - ${floor}::float8, 0) / nullif(1 - ${floor}::float8, 0)`;
  const fused = (
    arms: string,
  ) => `SELECT id, ${FUSION.vector} * coalesce(${relevance}, 0) + ${FUSION.text} * coalesce(text_score, 0) AS score, similarity, text_score
    FROM (SELECT id, max(similarity) AS similarity, max(text_score) AS text_score FROM (${arms}) arms GROUP BY id) found`;
  const topK = rowCount(spec.topK);
  if (text === undefined)
    return `${fused(`SELECT id, similarity, NULL::float8 AS text_score FROM (${nearest}) vector_arm`)} ORDER BY score DESC, id LIMIT ${topK}`;
  if (nearest === undefined) {
    return `${fused(`SELECT id, NULL::float8 AS similarity, text_score FROM (${textArmSql(spec, text, depth)}) text_arm`)} ORDER BY score DESC, id LIMIT ${topK}`;
  }
  return hybridSql(spec, { nearest, text, depth, topK, fused });
}

/**
 * Hybrid search in one statement. The vector arm's rows get the text score they earn (their whole
 * rank when they hold every distinctive word, FUSION.partialMatch of it when they hold some), from
 * the tsvector the arm read with them: found again through the GIN index instead, the planner
 * intersected the rows holding any query word (thousands for a common word) with the filters, 17 ms
 * of a per-user search in PGlite for 40 rows already at hand. Rows holding every word join from the
 * text arm. A row holding only some words that the vector arm did not find scores less than
 * FUSION.text × FUSION.partialMatch, so the scan for such rows (an OR over the GIN index, the costly
 * part of the text arm) runs only when fewer than top_k rows score at least that: the results are
 * those of ranking every match, for a fraction of the work.
 */
function hybridSql(
  spec: Pick<RankedSearchSpec, "table" | "idColumn" | "where">,
  arms: { nearest: string; text: QueryText; depth: number; topK: string; fused: (arms: string) => string },
): string {
  const { idColumn } = spec;
  const { nearest, text, depth, topK, fused } = arms;
  const partialOnlyBound = FUSION.text * FUSION.partialMatch;
  return `WITH ${wholeMatchesSql(spec, text, depth)},
      vector_arm AS MATERIALIZED (${nearest}),
      near_text AS (SELECT id,
          (ts_rank_cd(search_text, words, 32) * CASE WHEN search_text @@ every_word THEN 1 ELSE ${FUSION.partialMatch} END)::float8 AS text_score
        FROM vector_arm, terms WHERE search_text @@ words),
      close AS MATERIALIZED (${fused(`SELECT id, similarity, NULL::float8 AS text_score FROM vector_arm
        UNION ALL SELECT id, NULL::float8, text_score FROM whole
        UNION ALL SELECT id, NULL::float8, text_score FROM near_text`)})
    SELECT id, score, similarity, text_score FROM close
    UNION ALL
    SELECT id, ${FUSION.text} * text_score AS score, NULL::float8 AS similarity, text_score FROM (${rankedMatchesSql(
      spec,
      `search_text @@ words AND NOT search_text @@ every_word AND ${idColumn} NOT IN (SELECT id FROM close)
        AND (SELECT count(*) FROM close WHERE score >= ${partialOnlyBound}) < ${topK}`,
      FUSION.partialMatch,
      depth,
    )}) partial_only
    ORDER BY score DESC, id LIMIT ${topK}`;
}

/** The vector arm of rows a vector index found: (id, similarity, then `columns`), those still passing the filters. */
function foundRowsSql(spec: Pick<RankedSearchSpec, "table" | "idColumn" | "idType" | "where" | "params">, found: NearestFound, columns: string): string {
  const { table, idColumn, idType, where, params } = spec;
  return `SELECT ${idColumn} AS id, found.found_similarity AS similarity${columns}
    FROM unnest(${params.add(found.ids)}::text[], ${params.add(found.similarities)}::float8[]) AS found(found_id, found_similarity)
    JOIN ${table} ON ${idColumn} = found.found_id::${idType}
    WHERE ${where}`;
}

/** The rows fused outside the statement that still pass the filters: (id, score, similarity, text_score), best first. */
/**
 * `columns` (SQL over `table`, unqualified) of the rows a fused search found that pass `where`,
 * with their scores, best first: a search function's rows in one join. Ranked ids joined to the
 * table again, as the other searches read their rows, cost PGlite a second join (a profile fetch at
 * 100k per type through the driver's prepared statements: 3.0 ms; in one join 1.8).
 */
export function fusedRowsSelectSql(
  target: Pick<RankedSearchSpec, "table" | "idColumn" | "idType" | "where" | "params">,
  found: FusedFound,
  topK: number,
  columns: string,
): string {
  const { table, idColumn, idType, where, params } = target;
  // The inner LIMIT changes no answer (the list holds at most topK rows); it tells the planner how
  // many rows the list holds, which for a bound array it cannot know, so the generic plan costs what
  // the plans made for the values cost, and is kept: without it every fetch was planned anew.
  return `SELECT ${columns}, found.score, found.similarity, found.text_score
    FROM (SELECT * FROM unnest(${params.add(found.ids)}::text[], ${params.add(found.scores)}::float8[], ${params.add(found.similarities)}::float8[],
      ${params.add(found.textScores)}::float8[]) LIMIT ${rowCount(topK)}) AS found(found_id, score, similarity, text_score)
    JOIN ${table} ON ${idColumn} = found.found_id::${idType}
    WHERE ${where}
    ORDER BY found.score DESC, ${idColumn} LIMIT ${rowCount(topK)}`;
}

/**
 * A row count written into the statement rather than bound: statements are prepared, and PostgreSQL
 * keeps a generic plan (no planning per search) only when it costs no more than the plans made for
 * the values; with a bound LIMIT the generic plan assumes a tenth of the table, so the project-wide
 * searches were planned anew each time. Counts come from our code (top_k is validated), never text.
 */
function rowCount(count: number): string {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`a row count must be a non-negative integer, got ${count}`);
  return String(count);
}

/** How many rows each arm ranks before fusion: enough that fusion can reorder the top `topK`. */
export function rankedArmDepth(topK: number): number {
  return Math.max(topK * 4, 40);
}

/**
 * SQL of the `limit` rows passing `where` nearest to `vector` by cosine distance, nearest first:
 * (id, distance, then `columns`: SQL of more columns, each after a comma). The filter sits in the
 * HNSW scan's query, so with hnsw.iterative_scan the scan walks on until `limit` rows pass it;
 * `threshold` keeps rows whose similarity is above it.
 */
export function nearestSql(
  target: Pick<RankedSearchSpec, "table" | "idColumn" | "where" | "params">,
  search: { vector: VectorParam; threshold?: number | undefined; limit: number; columns?: string },
): string {
  const { table, idColumn, where, params } = target;
  const distance = `embedding <=> ${params.add(search.vector)}::vector`;
  const floor = search.threshold !== undefined ? ` AND ${distance} < ${params.add(1 - search.threshold)}` : "";
  return `SELECT ${idColumn} AS id, ${distance} AS distance${search.columns ?? ""} FROM ${table}
    WHERE ${where}${floor}
    ORDER BY ${distance} LIMIT ${rowCount(search.limit)}`;
}

/**
 * How many matching rows each text query ranks at most. ts_rank_cd reads each row's whole tsvector,
 * so ranking every row that shares a word with the query grows with the table (at 100k agent
 * playbooks, tens of thousands of rows for an ordinary question); past this many matches the words
 * tell few rows apart, and the vector arm carries the ranking.
 */
const TEXT_CANDIDATES = 1000;

/**
 * The full-text arm: rows holding every distinctive word of the query first (they score their whole
 * rank); only when fewer than `depth` do, rows holding some of the words (FUSION.partialMatch of their
 * rank). Each ranks at most TEXT_CANDIDATES rows, so the arm's cost is bounded however many rows
 * match. Yields (id, text_score).
 */
function textArmSql(spec: Pick<RankedSearchSpec, "table" | "idColumn" | "where">, text: QueryText, depth: number): string {
  const partial = `search_text @@ words AND NOT search_text @@ every_word AND (SELECT count(*) FROM whole) < ${rowCount(depth)}`;
  return `WITH ${wholeMatchesSql(spec, text, depth)}
    SELECT id, text_score FROM whole
    UNION ALL
    (${rankedMatchesSql(spec, partial, FUSION.partialMatch, depth)})`;
}

/**
 * The common expressions both text arms start with: `terms` (the query's distinctive words) and
 * `whole` (the best `depth` rows holding every one of them, by their whole rank).
 */
function wholeMatchesSql(spec: Pick<RankedSearchSpec, "table" | "idColumn" | "where">, text: QueryText, depth: number): string {
  return `terms AS MATERIALIZED (SELECT words, every_word FROM ${distinctiveWords(text)}),
      whole AS MATERIALIZED (${rankedMatchesSql(spec, "search_text @@ every_word", 1, depth)})`;
}

/**
 * The best `depth` of at most TEXT_CANDIDATES rows passing `where` and `match` (a condition over
 * search_text and the `terms` of the statement), by ts_rank_cd times `weight`: (id, text_score).
 */
function rankedMatchesSql(spec: Pick<RankedSearchSpec, "table" | "idColumn" | "where">, match: string, weight: number, depth: number): string {
  const { table, idColumn, where } = spec;
  return `SELECT id, (ts_rank_cd(search_text, words, 32) * ${weight})::float8 AS text_score
      FROM (SELECT ${idColumn} AS id, search_text FROM ${table}, terms WHERE ${where} AND ${match} LIMIT ${rowCount(TEXT_CANDIDATES)}) candidates, terms
      ORDER BY text_score DESC, id LIMIT ${rowCount(depth)}`;
}

/** The parameters of the query text and of the table's common lexemes (text[]). */
interface QueryText {
  query: string;
  common: string;
}

/** A lexeme in more than this share of a table's rows says little about which row is meant. */
const COMMON_LEXEME_SHARE = 0.05;

/**
 * The lexemes in more than COMMON_LEXEME_SHARE of `table`'s rows, by the planner's statistics of
 * search_text (none until ANALYZE has gathered them). They change only when the statistics do, so
 * callers keep them for a while (packages/core) rather than read pg_stats in every search.
 */
export async function commonLexemes(sql: Sql, table: string): Promise<string[]> {
  const [row] = await sql.query<{ lexemes: string[] }>(
    `SELECT coalesce(array_agg(s.lexeme ORDER BY s.lexeme), '{}') AS lexemes FROM pg_stats st
      CROSS JOIN LATERAL unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) AS s(lexeme, share)
      WHERE st.schemaname = current_schema() AND st.tablename = $1 AND st.attname = 'search_text'
        AND s.lexeme IS NOT NULL AND s.share > $2`,
    [table, COMMON_LEXEME_SHARE],
  );
  return row?.lexemes ?? [];
}

/**
 * The full-text queries of the text arm, as a FROM item with two columns: `words`, where any of the
 * query's stemmed words may match (OR; ts_rank_cd rewards rows that match more of them), and
 * `every_word`, where all must (AND). The table's common lexemes are left out: matching "order" in
 * an order-support corpus would make the arm rank tens of thousands of rows, and tell nothing
 * apart. A query of only such words keeps them all.
 */
function distinctiveWords(text: QueryText): string {
  // Each lexeme quoted for to_tsquery ('simple' keeps it as it is), backslashes and quotes escaped.
  const quoted = `'''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''`;
  return `(SELECT to_tsquery('simple', coalesce(string_agg(quoted, ' | ') FILTER (WHERE NOT common), string_agg(quoted, ' | '))),
      to_tsquery('simple', coalesce(string_agg(quoted, ' & ') FILTER (WHERE NOT common), string_agg(quoted, ' & ')))
    FROM (SELECT ${quoted} AS quoted, lexeme = ANY(${text.common}::text[]) AS common
          FROM unnest(tsvector_to_array(to_tsvector('english', ${text.query}))) AS lexeme) lexemes) AS distinctive(words, every_word)`;
}

/** A search as planned from a request (see planQuery in packages/core), and how many rows it wants. */
export interface RankedQuery {
  mode: SearchMode;
  queryVector?: VectorParam;
  /** Rows embedded by another model are left to the text arm until they are re-embedded. */
  embeddingModel: string;
  queryText?: string;
  /** The searched table's common lexemes (commonLexemes), left out of the text query. */
  commonLexemes: readonly string[];
  threshold?: number;
  /** The embedding model's default floor (RankedSearchSpec.similarityFloor). */
  similarityFloor: number;
  topK: number;
  nearestFound?: NearestFound;
  /** Both arms ranked and fused outside the database: the search function reads the rows with fusedRowsSelectSql. */
  fusedFound?: FusedFound;
}

/** rankedSearchSql over one table's rows passing `where`, for a planned query. */
export function rankedQuerySql(target: Pick<RankedSearchSpec, "table" | "idColumn" | "idType" | "where" | "params">, query: RankedQuery): string {
  if (query.fusedFound) throw new Error("a fused search's rows are read with fusedRowsSelectSql, not ranked again");
  return rankedSearchSql({
    ...target,
    mode: query.mode,
    ...(query.queryVector && { vector: { query: query.queryVector, model: query.embeddingModel } }),
    ...(query.queryText && { text: query.queryText }),
    commonLexemes: query.commonLexemes,
    ...(query.threshold !== undefined ? { threshold: query.threshold } : {}),
    similarityFloor: query.similarityFloor,
    topK: query.topK,
    ...(query.nearestFound && { nearestFound: query.nearestFound }),
  });
}
