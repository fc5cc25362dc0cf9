/** Turns text into L2-normalized vectors for similarity search. */
export interface Embedder {
  /** Stored beside each vector; a change of model triggers re-embedding. */
  readonly modelId: string;
  /** Length of every vector (the database column is vector(384)). */
  readonly dimensions: number;
  /** One unit-length vector per text, in input order; batches internally. */
  embedDocuments(texts: string[]): Promise<number[][]>;
  /** Served from a bounded LRU cache; concurrent identical queries share one computation. */
  embedQuery(text: string): Promise<number[]>;
  close(): Promise<void>;
}

export type EmbedderOptions =
  | { kind: "local"; modelDir: string; poolSize?: number }
  | { kind: "openai"; baseUrl: string; apiKey?: string; model: string; dimensions: number; timeoutMs?: number };

/** What each kind of embedder implements; the query cache adds embedQuery on top. */
export type EmbeddingProvider = Omit<Embedder, "embedQuery">;
