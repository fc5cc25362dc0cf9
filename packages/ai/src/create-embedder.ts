import type { EmbeddingPoolActivity } from "@als/compute";
import type { Embedder, EmbedderOptions, EmbeddingProvider } from "./embedder.ts";
import { EmbedderUnavailableError } from "./embedder-unavailable-error.ts";
import { createLocalEmbeddingProvider } from "./local-embedding-provider.ts";
import { createOpenAiCompatibleEmbeddingProvider } from "./openai-compatible-embedding-provider.ts";
import { withQueryCache } from "./query-embedding-cache.ts";

/** Bounds the query cache at about 30 MB of 384-dimension vectors. */
const cachedQueries = 10_000;

/**
 * The configured embedder, already proven to work: it has embedded a text, so a missing model
 * or an unreachable server fails here, at start-up, with EmbedderUnavailableError. A local model's
 * pool is counted in `activity`, the process's embedding pools, when given.
 */
export async function createEmbedder(options: EmbedderOptions, activity?: EmbeddingPoolActivity): Promise<Embedder> {
  const provider = options.kind === "local" ? await createLocalEmbeddingProvider({ ...options, ...(activity && { activity }) }) : await checkedRemote(options);
  return withQueryCache(provider, cachedQueries);
}

async function checkedRemote(options: Extract<EmbedderOptions, { kind: "openai" }>): Promise<EmbeddingProvider> {
  const provider = createOpenAiCompatibleEmbeddingProvider(options);
  try {
    await provider.embedDocuments(["connectivity check"]);
  } catch (error) {
    throw new EmbedderUnavailableError(
      `The embeddings server at ${options.baseUrl} could not embed with model ${options.model} ` +
        `(${error instanceof Error ? error.message : String(error)}). Check EMBEDDING_BASE_URL, EMBEDDING_MODEL and ` +
        `EMBEDDING_API_KEY, and that the model returns ${options.dimensions} dimensions, or unset EMBEDDING_PROVIDER to ` +
        `use the local model (scripts/install-model.sh).`,
      { cause: error },
    );
  }
  return provider;
}
