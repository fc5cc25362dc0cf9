// @ts-check
// Worker-thread task: score (query, document) pairs with a BERT cross-encoder. Plain JavaScript
// for the same reason as embed-texts.mjs: Node worker threads load it without a TypeScript loader.
import "./exit-on-pool-close.mjs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import * as ort from "onnxruntime-node";
import { move } from "piscina";
import { encodePairs } from "../cross-encoder/encode-pairs.mjs";

/**
 * @typedef {import("../score-pairs-task.ts").ScorePairsInput} ScorePairsInput
 * @typedef {{ tokenizer: Tokenizer; session: ort.InferenceSession }} LoadedModel
 */

/** One load per worker thread and model dir; later tasks reuse it. @type {Map<string, Promise<LoadedModel>>} */
const loadedModels = new Map();

/** @param {string} modelDir @returns {Promise<LoadedModel>} */
function loadModel(modelDir) {
  let loading = loadedModels.get(modelDir);
  if (loading === undefined) {
    loading = readModel(modelDir);
    // A failed load is forgotten so that a later task (e.g. after an install) can try again.
    loading.catch(() => loadedModels.delete(modelDir));
    loadedModels.set(modelDir, loading);
  }
  return loading;
}

/** @param {string} modelDir @returns {Promise<LoadedModel>} */
async function readModel(modelDir) {
  const tokenizerJson = JSON.parse(await readFile(join(modelDir, "tokenizer.json"), "utf8"));
  const session = await ort.InferenceSession.create(join(modelDir, "model.onnx"), {
    // The pool runs one worker per core; more ORT threads per worker would oversubscribe them.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  // A BERT tokenizer.json holds its normalizer (lower-casing, accent stripping) itself, so no
  // tokenizer_config.json is needed: a cross-encoder's directory holds just the two files.
  return { tokenizer: new Tokenizer(tokenizerJson, {}), session };
}

/** @param {ScorePairsInput} input */
export default async function scorePairs({ modelDir, maxTokens, query, documents }) {
  const { tokenizer, session } = await loadModel(modelDir);
  const pairs = encodePairs(tokenizer, query, documents, maxTokens);
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
  // Copied into a buffer this task owns, which can then be transferred to the host, not cloned.
  return move(Float32Array.from(/** @type {Float32Array} */ (logits.data)));
}
