/** What one pool's embedding tasks are doing now. */
export interface EmbeddingPoolState {
  threads: number;
  /** Tasks handed to a thread. */
  running: number;
  /** Tasks waiting for a thread (query embeddings among them are run together when one frees). */
  queued: number;
}

const livePools = new Set<() => EmbeddingPoolState>();
const batchListeners = new Set<(texts: number) => void>();

/**
 * The process's open pools summed, read when metrics are scraped. A process may have several (the
 * embedder's, the clustering one); a pool leaves the sum when it closes.
 */
export function embeddingPoolsState(): EmbeddingPoolState {
  const sum = { threads: 0, running: 0, queued: 0 };
  for (const stateOf of livePools) {
    const state = stateOf();
    sum.threads += state.threads;
    sum.running += state.running;
    sum.queued += state.queued;
  }
  return sum;
}

/** Calls `listener` with the number of texts of every embedding task a pool runs; returns its removal. */
export function onEmbeddingBatch(listener: (texts: number) => void): () => void {
  batchListeners.add(listener);
  return () => batchListeners.delete(listener);
}

/** A pool opened: its state joins the sum until the returned function is called. */
export function trackEmbeddingPool(stateOf: () => EmbeddingPoolState): () => void {
  livePools.add(stateOf);
  return () => livePools.delete(stateOf);
}

/** A pool started an embedding task of `texts` texts. */
export function noteEmbeddingBatch(texts: number): void {
  for (const listener of batchListeners) listener(texts);
}
