import { afterAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { TINY_CROSS_ENCODER_DIR } from "@als/test-support/tiny-cross-encoder.ts";
import { Tokenizer } from "@huggingface/tokenizers";
import { encodePairs } from "../src/cross-encoder/encode-pairs.mjs";
import { createComputePool } from "../src/index.ts";

const tokenizer = new Tokenizer(JSON.parse(await readFile(join(TINY_CROSS_ENCODER_DIR, "tokenizer.json"), "utf8")), {});
const pool = createComputePool({ threads: 2 });
afterAll(() => pool.close());

describe("encodePairs", () => {
  test("matches the tokenizer's own BERT sentence-pair encoding", () => {
    const query = "Which dogs does Fay own?";
    const documents = ["Fay owns two DOGS and a cat, café", "x"];
    const pairs = encodePairs(tokenizer, query, documents, 512);
    documents.forEach((document, index) => {
      const reference = tokenizer.encode(query, { text_pair: document, return_token_type_ids: true });
      expect(pairs[index]).toEqual({ ids: reference.ids, typeIds: reference.token_type_ids });
    });
  });

  test("an over-long pair loses tokens from the end of its longer side, keeping both [SEP]s", () => {
    const [pair] = encodePairs(tokenizer, "one two", ["alpha beta gamma delta epsilon zeta"], 8);
    expect(pair!.ids).toHaveLength(8);
    expect(tokenizer.decode(pair!.ids)).toBe("[CLS] one two [SEP] alpha beta gamma [SEP]");
    expect(pair!.typeIds).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    const [balanced] = encodePairs(tokenizer, "one two three four five six", ["alpha beta gamma delta epsilon zeta"], 9);
    expect(tokenizer.decode(balanced!.ids)).toBe("[CLS] one two three [SEP] alpha beta gamma [SEP]");
  });
});

describe("scorePairs on the pool", () => {
  test("returns one logit per document, in document order, from the cross-encoder", async () => {
    const scores = await pool.scorePairs({
      modelDir: TINY_CROSS_ENCODER_DIR,
      maxTokens: 512,
      query: "golden retriever",
      // Different lengths in one batch: padding must not count.
      documents: ["a cat", "golden retriever puppies are golden", "golden"],
    });
    // The tiny model counts document tokens found in the query: golden, retrieve, ##r, golden.
    expect([...scores]).toEqual([0, 4, 1]);
  });

  test("a directory without a model fails the task, naming the file", async () => {
    await expect(pool.scorePairs({ modelDir: "/nonexistent-model-dir", maxTokens: 512, query: "q", documents: ["d"] })).rejects.toThrow(
      "/nonexistent-model-dir/tokenizer.json",
    );
  });
});
