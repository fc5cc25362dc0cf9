import { z } from "zod";
import { chunk } from "./chunk.ts";
import type { EmbeddingProvider } from "./embedder.ts";
import { l2Normalize } from "./l2-normalize.ts";
import { type BackoffPolicy, retryWithBackoff } from "./retry-with-backoff.ts";

export interface OpenAiCompatibleOptions {
  /** Up to the version segment, e.g. http://127.0.0.1:1234/v1; `/embeddings` is appended. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions: number;
  /** Per HTTP attempt. */
  timeoutMs?: number;
}

const EmbeddingsResponse = z.object({
  data: z.array(z.object({ index: z.number().int().nonnegative(), embedding: z.array(z.number()) })),
});

/** Inputs per request; servers cap it (OpenAI at 2048), local ones are slower with large batches. */
const textsPerRequest = 64;
/**
 * The similarity floor for a served model, of which nothing has been measured here: large embedding
 * models put unrelated texts higher than the small local ones do, hence a floor above theirs. A
 * search that needs another one sets `threshold`.
 */
const FALLBACK_THRESHOLD = 0.45;
/**
 * Clustering and deduplication for a served model: the values this service used before any model was
 * calibrated (bench/similarity-calibration.ts measures an installed model); a project sets its own.
 */
const FALLBACK_CALIBRATION = { clusteringSimilarity: 0.8, deduplicationThreshold: 0.85 } as const;
const backoff: BackoffPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 4_000 };

/** A failed embeddings request; `transient` failures (429, 5xx, network, timeout) are retried. */
class EmbeddingRequestError extends Error {
  override readonly name = "EmbeddingRequestError";
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "embedding_unavailable";
  constructor(
    message: string,
    readonly transient: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Embeds through any server that speaks the OpenAI embeddings API (OpenAI, LM Studio, vLLM, ...). */
export function createOpenAiCompatibleEmbeddingProvider(options: OpenAiCompatibleOptions): EmbeddingProvider {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;

  async function requestOnce(input: string[]): Promise<unknown> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: options.model, input, dimensions: options.dimensions }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new EmbeddingRequestError(`POST ${url} failed: ${error instanceof Error ? error.message : String(error)}`, true, {
        cause: error,
      });
    }
    if (!response.ok) {
      const transient = response.status === 429 || response.status >= 500;
      throw new EmbeddingRequestError(`POST ${url} answered ${response.status} ${response.statusText}: ${text.slice(0, 500)}`, transient);
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new EmbeddingRequestError(`${url} answered with a body that is not JSON: ${text.slice(0, 200)}`, false, { cause: error });
    }
  }

  async function embedBatch(input: string[]): Promise<number[][]> {
    const body = await retryWithBackoff(
      () => requestOnce(input),
      (error) => error instanceof EmbeddingRequestError && error.transient,
      backoff,
    );
    const parsed = EmbeddingsResponse.safeParse(body);
    if (!parsed.success) throw new EmbeddingRequestError(`${url} answered an unexpected body: ${z.prettifyError(parsed.error)}`, false);
    if (parsed.data.data.length !== input.length) {
      throw new EmbeddingRequestError(`${url} sent ${parsed.data.data.length} embeddings for ${input.length} inputs`, false);
    }
    const byIndex = new Map(parsed.data.data.map((item) => [item.index, item.embedding]));
    return input.map((_, index) => {
      const embedding = byIndex.get(index);
      if (embedding === undefined) throw new EmbeddingRequestError(`${url} sent no embedding for input ${index}`, false);
      if (embedding.length !== options.dimensions) {
        throw new EmbeddingRequestError(`${url} (model ${options.model}) returned ${embedding.length} dimensions, ${options.dimensions} are required`, false);
      }
      return l2Normalize(embedding);
    });
  }

  async function embedTexts(texts: string[]): Promise<number[][]> {
    const vectors: number[][] = [];
    // One request at a time, to stay within the server's rate limits.
    for (const batch of chunk(texts, textsPerRequest)) vectors.push(...(await embedBatch(batch)));
    return vectors;
  }

  return {
    modelId: options.model,
    dimensions: options.dimensions,
    defaultThreshold: FALLBACK_THRESHOLD,
    calibration: FALLBACK_CALIBRATION,
    // The API has no notion of query and document; a model needing prefixes gets them from its caller.
    embedDocuments: embedTexts,
    embedQueries: embedTexts,
    close: async () => {},
  };
}
