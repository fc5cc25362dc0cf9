/** What one pool's embedding tasks are doing now. */
export interface EmbeddingPoolState {
  threads: number;
  /** Tasks handed to a thread. */
  running: number;
  /** Tasks waiting for a thread (query embeddings among them are run together when one frees). */
  queued: number;
}

/**
 * A process's open embedding pools, read when metrics are scraped. A process may have several (the
 * embedder's, the clustering one); each joins when it opens (ComputePoolOptions.activity) and leaves
 * when it closes. Built once per process by its composition root.
 */
export class EmbeddingPoolActivity {
  readonly #pools = new Set<() => EmbeddingPoolState>();
  readonly #batchListeners = new Set<(texts: number) => void>();

  /** The open pools summed. */
  state(): EmbeddingPoolState {
    const sum = { threads: 0, running: 0, queued: 0 };
    for (const stateOf of this.#pools) {
      const state = stateOf();
      sum.threads += state.threads;
      sum.running += state.running;
      sum.queued += state.queued;
    }
    return sum;
  }

  /** Calls `listener` with the number of texts of every embedding task a pool runs; returns its removal. */
  onBatch(listener: (texts: number) => void): () => void {
    this.#batchListeners.add(listener);
    return () => this.#batchListeners.delete(listener);
  }

  /** A pool opened: its state joins the sum until the returned function is called. */
  track(stateOf: () => EmbeddingPoolState): () => void {
    this.#pools.add(stateOf);
    return () => this.#pools.delete(stateOf);
  }

  /** A pool started an embedding task of `texts` texts. */
  noteBatch(texts: number): void {
    for (const listener of this.#batchListeners) listener(texts);
  }
}
