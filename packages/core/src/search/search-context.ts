import type { Embedder } from "@als/ai";
import type { Database } from "@als/db";
import type { VectorIndex } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { RequestTimings } from "../request-timings.ts";

/**
 * What is one search's own, passed down from its admission (admitSearch) to every statement,
 * embedding and index read it makes; the process's dependencies are never copied or rewritten for it.
 */
export interface SearchContext {
  /** Aborted when the search's deadline passes: no statement, embedding or arm starts after it. */
  readonly signal: AbortSignal;
  /** When the search (its request) started, performance.now(): its rank among searches' statements. */
  readonly startedAt: number;
  /** The performance.now() it should answer by: admission judges by it, a unified search answers 504 past it. */
  readonly deadline: number;
  /** Where its stages are recorded. */
  readonly timings: RequestTimings;
  /** The database as the search sees it (see abortableDatabase): its statements, none sent after the signal. */
  readonly db: Database;
  /** What its query is embedded with (the three entity searches of a unified search share one embedding). */
  readonly embedder: Embedder;
  /** The vector index it searches, if the process has one (a unified search reads what changed once for its three). */
  readonly vectorIndex?: VectorIndex | undefined;
}

/** A search outside admission and without a deadline, over the process's own parts: for benches and tools. */
export function unboundedSearch(deps: Pick<CoreDeps, "db" | "embedder" | "vectorIndex">, timings = new RequestTimings()): SearchContext {
  return {
    signal: new AbortController().signal,
    startedAt: performance.now(),
    deadline: Number.POSITIVE_INFINITY,
    timings,
    db: deps.db,
    embedder: deps.embedder,
    vectorIndex: deps.vectorIndex,
  };
}
