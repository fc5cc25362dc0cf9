import { type Params, vectorLiteral } from "./params.ts";

export type SearchMode = "vector" | "fts" | "hybrid";

/** The constant of reciprocal rank fusion: score = Σ 1 / (RRF_K + rank) over the arms. */
export const RRF_K = 60;

export interface RankedSearchSpec {
  table: string;
  idColumn: string;
  /** SQL condition over the table's columns (filters, scope); its values are already in `params`. */
  where: string;
  params: Params;
  mode: SearchMode;
  /** The query vector and the model that made it (vector and hybrid modes); rows of other models are skipped. */
  vector?: { values: readonly number[]; model: string };
  /** The query text (fts and hybrid modes). */
  text?: string;
  /** The vector arm keeps rows whose cosine similarity is above this. */
  threshold?: number;
  topK: number;
}

/**
 * SQL that ranks the ids of `table` by the vector arm (HNSW, cosine), the full-text arm (GIN over
 * `search_text`) or both fused by reciprocal rank fusion. Filters sit inside each arm's query, so
 * the HNSW scan walks until it has enough rows that pass them rather than post-filtering a fixed
 * candidate list. Yields rows (id, score) best first.
 */
export function rankedSearchSql(spec: RankedSearchSpec): string {
  const { table, idColumn, where, params } = spec;
  const depth = rankedArmDepth(spec.topK);
  const arms: string[] = [];
  if (spec.mode !== "fts" && spec.vector) {
    const nearest = nearestSql(
      { table, idColumn, where: `${where} AND embedding_model = ${params.add(spec.vector.model)}`, params },
      { vector: spec.vector.values, threshold: spec.threshold, limit: depth },
    );
    arms.push(`SELECT id, row_number() OVER (ORDER BY distance) AS rank, 1 - distance AS similarity FROM (${nearest}) nearest`);
  }
  if (spec.mode !== "vector" && spec.text) {
    arms.push(`SELECT id, row_number() OVER (ORDER BY text_rank DESC, id) AS rank, NULL::float8 AS similarity FROM (
      SELECT ${idColumn} AS id, ts_rank_cd(search_text, words) AS text_rank FROM ${table}, ${anyDistinctiveWord(table, params.add(spec.text))}
      WHERE ${where} AND search_text @@ words
      ORDER BY text_rank DESC LIMIT ${params.add(depth)}) matches`);
  }
  if (arms.length === 0) throw new Error("rankedSearchSql needs a query vector or a query text for its mode");
  return `SELECT id, sum(1.0 / (${RRF_K} + rank))::float8 AS score, max(similarity)::float8 AS similarity
    FROM (${arms.join(" UNION ALL ")}) arms
    GROUP BY id ORDER BY score DESC, id LIMIT ${params.add(spec.topK)}`;
}

/** How many rows each arm ranks before fusion: enough that fusion can reorder the top `topK`. */
export function rankedArmDepth(topK: number): number {
  return Math.max(topK * 4, 40);
}

/**
 * SQL of the `limit` rows passing `where` nearest to `vector` by cosine distance, nearest first:
 * (id, distance). The filter sits in the HNSW scan's query, so with hnsw.iterative_scan the scan
 * walks on until `limit` rows pass it; `threshold` keeps rows whose similarity is above it.
 */
export function nearestSql(
  target: Pick<RankedSearchSpec, "table" | "idColumn" | "where" | "params">,
  search: { vector: readonly number[]; threshold?: number | undefined; limit: number },
): string {
  const { table, idColumn, where, params } = target;
  const distance = `embedding <=> ${params.add(vectorLiteral(search.vector))}::vector`;
  const floor = search.threshold !== undefined ? ` AND ${distance} < ${params.add(1 - search.threshold)}` : "";
  return `SELECT ${idColumn} AS id, ${distance} AS distance FROM ${table}
    WHERE ${where}${floor}
    ORDER BY ${distance} LIMIT ${params.add(search.limit)}`;
}

/** A lexeme in more than this share of a table's rows says little about which row is meant. */
const COMMON_LEXEME_SHARE = 0.05;

/**
 * The full-text query of the text arm, as a FROM item with the column `words`: any of the query's stemmed words may match (OR), and
 * ts_rank_cd rewards rows that match more of them. Words that many rows of the table contain (by
 * the planner's statistics of search_text, once ANALYZE has gathered them) are left out: matching
 * "order" in an order-support corpus would make the arm rank tens of thousands of rows, and tell
 * nothing apart. A query of only such words keeps them all.
 */
function anyDistinctiveWord(table: string, text: string): string {
  const common = `(SELECT s.lexeme FROM pg_stats st
      CROSS JOIN LATERAL unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) AS s(lexeme, share)
      WHERE st.schemaname = current_schema() AND st.tablename = '${table}' AND st.attname = 'search_text'
        AND s.lexeme IS NOT NULL AND s.share > ${COMMON_LEXEME_SHARE})`;
  // Each lexeme quoted for to_tsquery ('simple' keeps it as it is), backslashes and quotes escaped.
  const quoted = `'''' || replace(replace(lexeme, '\\', '\\\\'), '''', '''''') || ''''`;
  return `(SELECT to_tsquery('simple', coalesce(string_agg(quoted, ' | ') FILTER (WHERE NOT common), string_agg(quoted, ' | ')))
    FROM (SELECT ${quoted} AS quoted, lexeme IN ${common} AS common
          FROM unnest(tsvector_to_array(to_tsvector('english', ${text}))) AS lexeme) lexemes) AS distinctive(words)`;
}

/** A search as planned from a request (see planQuery in packages/core), and how many rows it wants. */
export interface RankedQuery {
  mode: SearchMode;
  queryVector?: number[];
  /** Rows embedded by another model are left to the text arm until they are re-embedded. */
  embeddingModel: string;
  queryText?: string;
  threshold?: number;
  topK: number;
}

/** rankedSearchSql over one table's rows passing `where`, for a planned query. */
export function rankedQuerySql(target: Pick<RankedSearchSpec, "table" | "idColumn" | "where" | "params">, query: RankedQuery): string {
  return rankedSearchSql({
    ...target,
    mode: query.mode,
    ...(query.queryVector && { vector: { values: query.queryVector, model: query.embeddingModel } }),
    ...(query.queryText && { text: query.queryText }),
    ...(query.threshold !== undefined ? { threshold: query.threshold } : {}),
    topK: query.topK,
  });
}
