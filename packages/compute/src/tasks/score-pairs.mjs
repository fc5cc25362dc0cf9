// @ts-check
// Worker-thread task: score (query, document) pairs with a BERT cross-encoder. Plain JavaScript
// for the same reason as embed-texts.mjs: Node worker threads load it without a TypeScript loader.
import "./exit-on-pool-close.mjs";
import * as ort from "onnxruntime-node";
import { move } from "piscina";
import { encodePairs } from "../cross-encoder/encode-pairs.mjs";
import { boundedRuns } from "./bounded-runs.mjs";
import { loadModel } from "./load-model.mjs";

/**
 * @typedef {import("../score-pairs-task.ts").ScorePairsInput} ScorePairsInput
 */

/** @param {ScorePairsInput} input */
export default async function scorePairs({ modelDir, maxTokens, query, documents }) {
  const { tokenizer, session } = await loadModel(modelDir, { withConfig: false });
  const pairs = encodePairs(tokenizer, query, documents, maxTokens);
  // A buffer this task owns, which can then be transferred to the host, not cloned.
  const scores = new Float32Array(pairs.length);
  for (const run of boundedRuns(
    pairs.map(({ ids }) => ids.length),
    maxTokens,
  )) {
    const logits = await scoreRun(
      session,
      modelDir,
      run.map((index) => /** @type {{ ids: number[]; typeIds: number[] }} */ (pairs[index])),
    );
    for (const [row, index] of run.entries()) scores[index] = /** @type {number} */ (logits[row]);
  }
  return move(scores);
}

/**
 * One model run over encoded pairs (a run of boundedRuns): a relevance logit per pair.
 * @param {ort.InferenceSession} session @param {string} modelDir @param {{ ids: number[]; typeIds: number[] }[]} pairs
 * @returns {Promise<Float32Array>}
 */
async function scoreRun(session, modelDir, pairs) {
  const batchSize = pairs.length;
  const sequenceLength = Math.max(...pairs.map(({ ids }) => ids.length));

  // Padding positions stay 0: the [PAD] id, masked out of attention, token type 0.
  const inputIds = new BigInt64Array(batchSize * sequenceLength);
  const attentionMask = new BigInt64Array(batchSize * sequenceLength);
  const tokenTypeIds = new BigInt64Array(batchSize * sequenceLength);
  pairs.forEach(({ ids, typeIds }, row) => {
    ids.forEach((id, column) => {
      const at = row * sequenceLength + column;
      inputIds[at] = BigInt(id);
      attentionMask[at] = 1n;
      tokenTypeIds[at] = BigInt(/** @type {number} */ (typeIds[column]));
    });
  });
  const shape = [batchSize, sequenceLength];
  const { logits } = await session.run({
    input_ids: new ort.Tensor("int64", inputIds, shape),
    attention_mask: new ort.Tensor("int64", attentionMask, shape),
    token_type_ids: new ort.Tensor("int64", tokenTypeIds, shape),
  });
  if (logits === undefined) throw new Error(`model in ${modelDir} has no logits output`);
  if (logits.dims.length !== 2 || logits.dims[0] !== batchSize || logits.dims[1] !== 1) {
    throw new Error(`model in ${modelDir} returned logits of shape [${logits.dims.join(", ")}], expected [${batchSize}, 1]`);
  }
  return /** @type {Float32Array} */ (logits.data);
}
