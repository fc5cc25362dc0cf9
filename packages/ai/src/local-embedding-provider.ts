import { resolve } from "node:path";
import { createComputePool, type EmbeddingPoolActivity } from "@als/compute";
import { chunk } from "./chunk.ts";
import type { EmbeddingProvider, EmbedOptions } from "./embedder.ts";
import { EmbedderUnavailableError } from "./embedder-unavailable-error.ts";
import { installAdvice, readModelManifest } from "./model-manifest.ts";

export interface LocalEmbeddingOptions {
  /** Directory written by scripts/install-model.sh (manifest.json, model.onnx, tokenizer files). */
  modelDir: string;
  /** Worker threads; defaults to the number of cores. */
  poolSize?: number;
  /** The process's embedding pools, where this one is counted (see EmbeddingPoolActivity); unset, it is not. */
  activity?: EmbeddingPoolActivity;
}

/** Texts per worker task: large enough to amortize the model call, small enough to spread a batch over the pool. */
const textsPerTask = 32;

function withPrefix(prefix: string, texts: string[]): string[] {
  return prefix === "" ? texts : texts.map((text) => prefix + text);
}

/**
 * Runs the ONNX sentence-embedding model in a pool of worker threads. Resolves only once the
 * model has embedded a text in every thread, so a broken install fails at start-up.
 */
export async function createLocalEmbeddingProvider(options: LocalEmbeddingOptions): Promise<EmbeddingProvider> {
  const modelDir = resolve(options.modelDir);
  const manifest = await readModelManifest(modelDir);
  const pool = createComputePool({
    ...(options.poolSize !== undefined && { threads: options.poolSize }),
    ...(options.activity && { activity: options.activity }),
  });

  async function embedBatch(texts: string[], signal?: AbortSignal): Promise<number[][]> {
    const vectors = await pool.embedTexts({ modelDir, maxTokens: manifest.maxSequenceLength, texts }, signal && { signal });
    if (vectors.length !== texts.length * manifest.dimensions) {
      throw new Error(`model in ${modelDir} returned ${vectors.length / texts.length} dimensions, its manifest says ${manifest.dimensions}`);
    }
    return texts.map((_, row) => Array.from(vectors.subarray(row * manifest.dimensions, (row + 1) * manifest.dimensions)));
  }

  async function embedTexts(texts: string[], options?: EmbedOptions): Promise<number[][]> {
    // Texts of similar length share a task so that little of each batch is padding.
    const order = texts.map((_, index) => index).sort((a, b) => texts[a]!.length - texts[b]!.length);
    const batches = chunk(order, textsPerTask);
    const results = await Promise.all(
      batches.map((indices) =>
        embedBatch(
          indices.map((index) => texts[index]!),
          options?.signal,
        ),
      ),
    );
    const vectors = new Array<number[]>(texts.length);
    for (const [batch, indices] of batches.entries()) for (const [row, index] of indices.entries()) vectors[index] = results[batch]![row]!;
    return vectors;
  }

  try {
    // One text per thread, sent together, so that each thread loads the model now.
    await Promise.all(Array.from({ length: pool.threads }, () => embedBatch(["warm-up"])));
  } catch (error) {
    await pool.close();
    throw new EmbedderUnavailableError(
      `The embedding model in ${modelDir} could not be loaded (${error instanceof Error ? error.message : String(error)}). ` +
        `Delete ${modelDir} and reinstall it. ${installAdvice}`,
      { cause: error },
    );
  }

  // Models trained with prefixes (e5: "query: ", "passage: ") compare a query with a stored text
  // only when each carries its own; the prefix goes first, so truncation never cuts it.
  return {
    modelId: manifest.modelId,
    dimensions: manifest.dimensions,
    defaultThreshold: manifest.defaultThreshold,
    calibration: { clusteringSimilarity: manifest.clusteringSimilarity, deduplicationThreshold: manifest.deduplicationThreshold },
    embedDocuments: (texts, options) => embedTexts(withPrefix(manifest.documentPrefix, texts), options),
    embedQueries: (texts, options) => embedTexts(withPrefix(manifest.queryPrefix, texts), options),
    close: () => pool.close(),
  };
}
