// @ts-check
// Worker-thread task: tokenize a batch, run the sentence-embedding ONNX model, mean-pool, and
// L2-normalize. Plain JavaScript so that Node worker threads (the Temporal worker) load it without
// a TypeScript loader; Bun loads it the same way. Types are checked through JSDoc.
import "./exit-on-pool-close.mjs";
import * as ort from "onnxruntime-node";
import { move } from "piscina";
import { boundedRuns } from "./bounded-runs.mjs";
import { loadModel } from "./load-model.mjs";

/**
 * @typedef {import("../embed-texts-task.ts").EmbedTextsInput} EmbedTextsInput
 */

/**
 * Token ids with special tokens, cut to maxTokens. The tokenizer library ignores tokenizer.json's
 * truncation settings, so truncation happens here; the final token ([SEP]) is kept, as the
 * Hugging Face tokenizers do for a single sequence.
 * @param {import("@huggingface/tokenizers").Tokenizer} tokenizer @param {string} text @param {number} maxTokens @returns {number[]}
 */
function tokenIds(tokenizer, text, maxTokens) {
  const { ids } = tokenizer.encode(text);
  if (ids.length <= maxTokens) return ids;
  return [...ids.slice(0, maxTokens - 1), /** @type {number} */ (ids[ids.length - 1])];
}

/** @param {EmbedTextsInput} input */
export default async function embedTexts({ modelDir, maxTokens, texts }) {
  const { tokenizer, session } = await loadModel(modelDir, { withConfig: true });
  const batch = texts.map((text) => tokenIds(tokenizer, text, maxTokens));
  /** @type {Float32Array | undefined} */
  let vectors;
  for (const run of boundedRuns(
    batch.map((ids) => ids.length),
    maxTokens,
  )) {
    const pooled = await embedRun(
      session,
      modelDir,
      run.map((index) => /** @type {number[]} */ (batch[index])),
    );
    const dimensions = pooled.length / run.length;
    vectors ??= new Float32Array(texts.length * dimensions);
    for (const [row, index] of run.entries()) vectors.set(pooled.subarray(row * dimensions, (row + 1) * dimensions), index * dimensions);
  }
  if (vectors === undefined) throw new Error("an embedding task needs at least one text");
  return move(vectors);
}

/**
 * One model run over token ids (a run of boundedRuns): a mean-pooled, unit-length vector per row.
 * @param {ort.InferenceSession} session @param {string} modelDir @param {number[][]} batch @returns {Promise<Float32Array>}
 */
async function embedRun(session, modelDir, batch) {
  const batchSize = batch.length;
  const sequenceLength = Math.max(...batch.map((ids) => ids.length));

  // Padding positions stay 0 (the [PAD] id) and are masked out of attention and pooling.
  const inputIds = new BigInt64Array(batchSize * sequenceLength);
  const attentionMask = new BigInt64Array(batchSize * sequenceLength);
  batch.forEach((ids, row) => {
    ids.forEach((id, column) => {
      inputIds[row * sequenceLength + column] = BigInt(id);
      attentionMask[row * sequenceLength + column] = 1n;
    });
  });
  const shape = [batchSize, sequenceLength];
  /** @type {Record<string, ort.Tensor>} */
  const feeds = {
    input_ids: new ort.Tensor("int64", inputIds, shape),
    attention_mask: new ort.Tensor("int64", attentionMask, shape),
    // Single-sequence inputs are all segment 0.
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(batchSize * sequenceLength), shape),
  };
  const { last_hidden_state: hidden } = await session.run(feeds);
  if (hidden === undefined) throw new Error(`model in ${modelDir} has no last_hidden_state output`);
  const dimensions = /** @type {number} */ (hidden.dims[2]);
  return meanPoolNormalized(/** @type {Float32Array} */ (hidden.data), batch, sequenceLength, dimensions);
}

/**
 * Mean of each text's token vectors over its real (unpadded) tokens, scaled to unit length.
 * @param {Float32Array} hidden [batch, sequence, dimensions]
 * @param {number[][]} batch @param {number} sequenceLength @param {number} dimensions
 */
function meanPoolNormalized(hidden, batch, sequenceLength, dimensions) {
  const vectors = new Float32Array(batch.length * dimensions);
  batch.forEach((ids, row) => {
    const sum = new Float64Array(dimensions);
    for (let token = 0; token < ids.length; token++) {
      const start = (row * sequenceLength + token) * dimensions;
      hidden.subarray(start, start + dimensions).forEach((value, d) => {
        sum[d] = /** @type {number} */ (sum[d]) + value;
      });
    }
    // Dividing the sum by the token count is skipped: normalizing removes the scale anyway.
    const norm = Math.hypot(...sum) || 1;
    vectors.set(
      sum.map((value) => value / norm),
      row * dimensions,
    );
  });
  return vectors;
}
