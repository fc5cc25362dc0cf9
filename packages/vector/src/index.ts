/**
 * Vector search behind one interface, over collections named after the searchable tables.
 *
 * PostgreSQL is always the record. Without QDRANT_URL the vector arm runs inside the ranked-search
 * SQL of packages/db (pgvector HNSW with iterative scans), fused with the full-text arm by its
 * weighted scores (FUSION) in that same query. With QDRANT_URL the vector arm asks Qdrant with the
 * same filters, translated into Qdrant's own filter, the full-text arm stays in PostgreSQL, the two
 * are fused by the same weights in code, and the rows are read back from PostgreSQL by id.
 *
 * Qdrant follows PostgreSQL through an outbox: triggers on the four tables note each changed row in
 * vector_outbox (migration 0012), and syncVectorIndexStep in packages/core pushes the rows' current
 * state and removes what it pushed; since it reads the rows again, re-pushing is harmless, and the
 * whole index can be rebuilt by noting every row.
 *
 * InProcessVectorIndex keeps the graphs inside the API process instead (VECTOR_INDEX=in-process);
 * ChangeLogFollower in packages/core keeps it in step through the change log of migration 0036.
 */

export * from "./collections.ts";
export { type InProcessSettings, InProcessVectorIndex } from "./in-process/in-process-vector-index.ts";
export { type TextDocument, type TextHit, TextIndex, type TextQuery, type TextRanking } from "./in-process/text-index.ts";
export { packTsvector } from "./in-process/tsvector-text.ts";
export { type IndexedRow, PgVectorIndex } from "./pgvector/pg-vector-index.ts";
export { type QdrantSettings, QdrantVectorIndex } from "./qdrant/qdrant-vector-index.ts";
export * from "./vector-index.ts";
