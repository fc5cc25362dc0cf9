import { access } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { ComputePool } from "@als/compute";
import { chunk } from "./chunk.ts";
import type { Reranker } from "./reranker.ts";
import { rerankerInstallAdvice } from "./reranker-install-advice.ts";
import { RerankerUnavailableError } from "./reranker-unavailable-error.ts";

export interface LocalRerankerOptions {
  /** Directory holding the cross-encoder's model.onnx and tokenizer.json. */
  modelDir: string;
  /** The process's compute pool: scoring runs on its threads, off the event loop. */
  compute: Pick<ComputePool, "scorePairs">;
}

const MODEL_FILES = ["model.onnx", "tokenizer.json"];
/** BERT cross-encoders have 512 position embeddings; a longer pair would not fit the model. */
const maxPairTokens = 512;
/** Pairs per worker task: large enough to amortize the model call, small enough to spread a rerank over the pool. */
const documentsPerTask = 16;

/**
 * Scores (query, document) pairs with the ONNX cross-encoder in `modelDir`. With the model files
 * missing it still resolves, to a reranker that rejects every call with RerankerUnavailableError
 * saying what to install, so that the rest of the service runs without one. Files that are there
 * but cannot be loaded fail here, at start-up, like a broken embedding model.
 */
export async function createLocalReranker(options: LocalRerankerOptions): Promise<Reranker> {
  const modelDir = resolve(options.modelDir);
  const missing = await missingFiles(modelDir);
  if (missing.length > 0) {
    const reason = `No reranking model is installed in ${modelDir} (${missing.join(" and ")} missing). ${rerankerInstallAdvice}`;
    return { score: () => Promise.reject(new RerankerUnavailableError(reason)) };
  }

  async function scoreTask(query: string, documents: string[]): Promise<Float32Array> {
    return options.compute.scorePairs({ modelDir, maxTokens: maxPairTokens, query, documents });
  }

  async function score(query: string, documents: string[]): Promise<number[]> {
    // Documents of similar length share a task so that little of each batch is padding.
    const order = documents.map((_, index) => index).sort((a, b) => documents[a]!.length - documents[b]!.length);
    const batches = chunk(order, documentsPerTask);
    const results = await Promise.all(
      batches.map((indices) =>
        scoreTask(
          query,
          indices.map((index) => documents[index]!),
        ),
      ),
    );
    const scores = new Array<number>(documents.length);
    for (const [batch, indices] of batches.entries()) for (const [row, index] of indices.entries()) scores[index] = results[batch]![row]!;
    return scores;
  }

  try {
    await scoreTask("warm-up", ["warm-up"]);
  } catch (error) {
    throw new RerankerUnavailableError(
      `The reranking model in ${modelDir} could not be loaded (${error instanceof Error ? error.message : String(error)}). ` +
        `Check that its model.onnx and tokenizer.json belong to one BERT cross-encoder. ${rerankerInstallAdvice}`,
      { cause: error },
    );
  }
  return { score };
}

async function missingFiles(modelDir: string): Promise<string[]> {
  const present = await Promise.all(
    MODEL_FILES.map((name) =>
      access(join(modelDir, name)).then(
        () => true,
        () => false,
      ),
    ),
  );
  return MODEL_FILES.filter((_, index) => !present[index]);
}
