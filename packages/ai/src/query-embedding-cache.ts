import type { Embedder, EmbeddingProvider } from "./embedder.ts";

/**
 * Adds embedQuery to a provider, served from an LRU cache of query embeddings. The cache holds
 * promises, so concurrent identical queries share one computation; a failed one is dropped so
 * the next call retries.
 */
export function withQueryCache(provider: EmbeddingProvider, maxEntries: number): Embedder {
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const cache = new Map<string, Promise<number[]>>();

  function lookUp(text: string): Promise<number[]> {
    const cached = cache.get(text);
    if (cached !== undefined) {
      cache.delete(text);
      cache.set(text, cached);
      return cached;
    }
    const computed = provider.embedDocuments([text]).then(([vector]) => vector!);
    cache.set(text, computed);
    computed.catch(() => {
      if (cache.get(text) === computed) cache.delete(text);
    });
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
    return computed;
  }

  return {
    modelId: provider.modelId,
    dimensions: provider.dimensions,
    embedDocuments: (texts) => provider.embedDocuments(texts),
    // A copy, so that a caller changing its vector cannot change what later callers get.
    embedQuery: async (text) => (await lookUp(text)).slice(),
    close: () => provider.close(),
  };
}
