/** Input of the score-pairs worker task (tasks/score-pairs.mjs). */
export interface ScorePairsInput {
  /** Directory holding a BERT cross-encoder: model.onnx and tokenizer.json. */
  modelDir: string;
  /** Token budget per pair, special tokens included; a longer pair loses tokens from its longer side. */
  maxTokens: number;
  query: string;
  /** At least one document. */
  documents: string[];
}

/** The cross-encoder's logit for each (query, document) pair, in document order; higher is more relevant. */
export type ScorePairsOutput = Float32Array;
