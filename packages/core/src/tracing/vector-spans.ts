import { inSpan } from "@als/telemetry";
import type { Collection, VectorIndex } from "@als/vector";
import { ChangeLogFollower } from "../vector-sync/change-log-follower.ts";

/** Which engine serves a vector search or takes an upsert: PostgreSQL (pgvector), the in-process graph, or Qdrant. */
export type VectorEngine = "pgvector" | "in-process" | "qdrant";

export const vectorEngineOf = (index: VectorIndex): VectorEngine => (index instanceof ChangeLogFollower ? "in-process" : "qdrant");

/** `run` in a span of a vector index's `operation` on `collection` (a table's name, chosen by the code). */
export function inVectorSpan<T>(operation: "search" | "upsert", engine: VectorEngine, collection: Collection, run: () => Promise<T>): Promise<T> {
  return inSpan(`vector ${operation}`, { "als.vector.index": engine, "als.vector.collection": collection }, run);
}
