// Types of encode-pairs.mjs for TypeScript files under the root config, which does not read JavaScript.
import type { Tokenizer } from "@huggingface/tokenizers";

export interface EncodedPair {
  ids: number[];
  typeIds: number[];
}
export function encodePairs(tokenizer: Tokenizer, query: string, documents: string[], maxTokens: number): EncodedPair[];
