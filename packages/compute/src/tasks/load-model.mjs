// @ts-check
// Loading an ONNX model and its tokenizer in a worker thread, once per thread and model directory.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import * as ort from "onnxruntime-node";

/** @typedef {{ tokenizer: Tokenizer; session: ort.InferenceSession }} LoadedModel */

/** @type {Map<string, Promise<LoadedModel>>} */
const loadedModels = new Map();

/**
 * The model of `modelDir` (model.onnx, tokenizer.json and, when `withConfig`, tokenizer_config.json),
 * loaded by the first task that asks and reused by later ones. A BERT tokenizer.json holds its
 * normalizer itself, so a cross-encoder's directory needs no tokenizer_config.json.
 * @param {string} modelDir @param {{ withConfig: boolean }} options @returns {Promise<LoadedModel>}
 */
export function loadModel(modelDir, options) {
  let loading = loadedModels.get(modelDir);
  if (loading === undefined) {
    loading = readModel(modelDir, options);
    // A failed load is forgotten so that a later task (e.g. after an install) can try again.
    loading.catch(() => loadedModels.delete(modelDir));
    loadedModels.set(modelDir, loading);
  }
  return loading;
}

/** @param {string} modelDir @param {{ withConfig: boolean }} options @returns {Promise<LoadedModel>} */
async function readModel(modelDir, { withConfig }) {
  const [tokenizerJson, tokenizerConfig] = await Promise.all([
    readFile(join(modelDir, "tokenizer.json"), "utf8").then(JSON.parse),
    withConfig ? readFile(join(modelDir, "tokenizer_config.json"), "utf8").then(JSON.parse) : {},
  ]);
  const session = await ort.InferenceSession.create(join(modelDir, "model.onnx"), {
    // The pool runs one worker per core; more ORT threads per worker would oversubscribe them.
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  return { tokenizer: new Tokenizer(tokenizerJson, tokenizerConfig), session };
}
