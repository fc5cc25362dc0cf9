/** Input of the embed-texts worker task (tasks/embed-texts.mjs). */
export interface EmbedTextsInput {
  /** Directory holding model.onnx, tokenizer.json and tokenizer_config.json. */
  modelDir: string;
  /** Token budget per text, special tokens included; longer texts are truncated. */
  maxTokens: number;
  /** At least one text. */
  texts: string[];
}

/**
 * Mean-pooled, L2-normalized embeddings, one row per input text in input order, concatenated in
 * one buffer (length = texts.length × dimensions) so the worker can transfer it instead of
 * copying it.
 */
export type EmbedTextsOutput = Float32Array;
