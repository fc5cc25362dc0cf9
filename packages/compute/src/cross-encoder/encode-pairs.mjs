// @ts-check
/** @typedef {import("@huggingface/tokenizers").Tokenizer} Tokenizer */

/**
 * One (query, document) pair as a BERT sentence pair: [CLS] query [SEP] document [SEP], token
 * types 0 up to and including the first [SEP], 1 after it. The layout is built here rather than
 * by the tokenizer's own pair template because the tokenizer library cannot truncate a pair.
 * @typedef {{ ids: number[]; typeIds: number[] }} EncodedPair
 */

/** [CLS], two [SEP]. */
const SPECIAL_TOKENS_PER_PAIR = 3;

/**
 * Encodes the query once and each document after it, cut to maxTokens. Like the Hugging Face
 * tokenizers' longest_first strategy, an over-long pair loses tokens from the end of whichever
 * side is longer (the document when they tie), so a short query survives a long document whole.
 * @param {Tokenizer} tokenizer a BERT WordPiece tokenizer
 * @param {string} query @param {string[]} documents @param {number} maxTokens
 * @returns {EncodedPair[]}
 */
export function encodePairs(tokenizer, query, documents, maxTokens) {
  if (maxTokens < SPECIAL_TOKENS_PER_PAIR + 2) throw new RangeError(`maxTokens must leave room for both texts, got ${maxTokens}`);
  const cls = specialTokenId(tokenizer, "[CLS]");
  const sep = specialTokenId(tokenizer, "[SEP]");
  const queryIds = wordIds(tokenizer, query);
  return documents.map((document) => {
    const [a, b] = truncatedLongestFirst(queryIds, wordIds(tokenizer, document), maxTokens - SPECIAL_TOKENS_PER_PAIR);
    return {
      ids: [cls, ...a, sep, ...b, sep],
      typeIds: [...new Array(a.length + 2).fill(0), ...new Array(b.length + 1).fill(1)],
    };
  });
}

/** @param {Tokenizer} tokenizer @param {string} text @returns {number[]} */
function wordIds(tokenizer, text) {
  return tokenizer.encode(text, { add_special_tokens: false }).ids;
}

/** @param {Tokenizer} tokenizer @param {string} token @returns {number} */
function specialTokenId(tokenizer, token) {
  const id = tokenizer.token_to_id(token);
  if (id === undefined) throw new Error(`the tokenizer has no ${token} token; a BERT cross-encoder's tokenizer.json is needed`);
  return id;
}

/** @param {number[]} a @param {number[]} b @param {number} budget @returns {[number[], number[]]} */
function truncatedLongestFirst(a, b, budget) {
  let [keepA, keepB] = [a.length, b.length];
  while (keepA + keepB > budget) {
    if (keepA > keepB) keepA--;
    else keepB--;
  }
  return [a.slice(0, keepA), b.slice(0, keepB)];
}
