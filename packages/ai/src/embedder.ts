/** Turns text into L2-normalized vectors for similarity search. */
export interface Embedder {
  /** Stored beside each vector; a change of model triggers re-embedding. */
  readonly modelId: string;
  /** Length of every vector (the database column is vector(384)). */
  readonly dimensions: number;
  /**
   * The vector arm's similarity floor when a search sets none: where unrelated texts fall depends
   * on the model (local models: their manifest; OpenAI-compatible servers: a general fallback).
   */
  readonly defaultThreshold: number;
  /** The model's values of the project settings that are similarities, used where a project sets none. */
  readonly calibration: SimilarityCalibration;
  /** One unit-length vector per text to be stored, in input order; batches internally. */
  embedDocuments(texts: string[], options?: EmbedOptions): Promise<number[][]>;
  /** Served from a bounded LRU cache; concurrent identical queries share one computation. */
  embedQuery(text: string, options?: EmbedOptions): Promise<number[]>;
  /** Whether embedQuery(text) would be answered from the cache (or a computation under way) now; it changes nothing (request timings report it). */
  hasCachedQuery(text: string): boolean;
  close(): Promise<void>;
}

/**
 * Similarity settings whose right value depends on the model (local models: their manifest, chosen on
 * bench/similarity-calibration.ts; OpenAI-compatible servers: general fallbacks).
 */
export interface SimilarityCalibration {
  /** Average-linkage similarity at which aggregation clusters user playbooks. */
  clusteringSimilarity: number;
  /** Similarity above which stored learnings are candidates for deduplicating a new one. */
  deduplicationThreshold: number;
}

export interface EmbedOptions {
  /**
   * Once aborted, the call rejects with the signal's reason and its work not yet started is
   * dropped (local: tasks still queued for the pool; work already running finishes).
   */
  signal?: AbortSignal | undefined;
}

export type EmbedderOptions =
  | { kind: "local"; modelDir: string; poolSize?: number }
  | { kind: "openai"; baseUrl: string; apiKey?: string; model: string; dimensions: number; timeoutMs?: number };

/** What each kind of embedder implements; the query cache adds embedQuery on top. */
export interface EmbeddingProvider extends Omit<Embedder, "embedQuery" | "hasCachedQuery"> {
  /** Like embedDocuments, for search queries: a model trained with prefixes embeds them differently. */
  embedQueries(texts: string[], options?: EmbedOptions): Promise<number[][]>;
}
