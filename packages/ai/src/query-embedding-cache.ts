import type { Embedder, EmbeddingProvider, EmbedOptions } from "./embedder.ts";

/**
 * Adds embedQuery to a provider, served from an LRU cache of query embeddings. The cache holds
 * promises, so concurrent identical queries share one computation; a failed one is dropped so
 * the next call retries.
 */
export function withQueryCache(provider: EmbeddingProvider, maxEntries: number): Embedder {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const cache = new Map<string, Promise<number[]>>();
  /** Computations under way: they stop only once every caller waiting for them has given up. */
  const pending = new Map<Promise<number[]>, { interested: number; stop: AbortController }>();

  function lookUp(text: string): Promise<number[]> {
    const cached = cache.get(text);
    if (cached !== undefined) {
      cache.delete(text);
      cache.set(text, cached);
      return cached;
    }
    const stop = new AbortController();
    const computed = provider.embedQueries([text], { signal: stop.signal }).then(([vector]) => vector!);
    cache.set(text, computed);
    pending.set(computed, { interested: 0, stop });
    computed.then(
      () => pending.delete(computed),
      () => {
        pending.delete(computed);
        if (cache.get(text) === computed) cache.delete(text);
      },
    );
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
    return computed;
  }

  /** The cached computation for one caller: with a signal, that caller stops waiting when it is aborted. */
  async function embedQuery(text: string, options?: EmbedOptions): Promise<number[]> {
    const signal = options?.signal;
    signal?.throwIfAborted();
    const computed = lookUp(text);
    const computation = pending.get(computed);
    if (!computation) return (await computed).slice();
    // A caller without a signal never gives up, so the computation then always runs to its end.
    computation.interested += signal ? 1 : Number.POSITIVE_INFINITY;
    if (!signal) return (await computed).slice();
    let onAbort: (() => void) | undefined;
    const abandoned = new Promise<never>((_, reject) => {
      onAbort = () => {
        reject(signal.reason);
        if (--computation.interested === 0) computation.stop.abort(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      // A copy, so that a caller changing its vector cannot change what later callers get.
      return (await Promise.race([computed, abandoned])).slice();
    } finally {
      signal.removeEventListener("abort", onAbort!);
    }
  }

  return {
    modelId: provider.modelId,
    dimensions: provider.dimensions,
    defaultThreshold: provider.defaultThreshold,
    calibration: provider.calibration,
    embedDocuments: (texts, options) => provider.embedDocuments(texts, options),
    embedQuery,
    hasCachedQuery: (text) => cache.has(text),
    close: () => provider.close(),
  };
}
