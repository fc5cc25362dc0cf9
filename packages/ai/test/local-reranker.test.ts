import { afterAll, expect, test } from "bun:test";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createComputePool } from "@als/compute";
import { createLocalReranker, RerankerUnavailableError } from "../src/index.ts";
import { MODEL_DIR } from "./model-dir.ts";

const compute = createComputePool({ threads: 1 });
afterAll(() => compute.close());

test("a missing model still composes; each call then rejects, saying what to put where", async () => {
  const modelDir = join(tmpdir(), "no-cross-encoder-here");
  const reranker = await createLocalReranker({ modelDir, compute });
  const scoring = reranker.score("q", ["d"]);
  await expect(scoring).rejects.toBeInstanceOf(RerankerUnavailableError);
  await expect(scoring).rejects.toThrow(`No reranking model is installed in ${modelDir} (model.onnx and tokenizer.json missing)`);
  await expect(scoring).rejects.toThrow("RERANK_MODEL_DIR");
});

test("model files that cannot be loaded fail at creation, not on the first request", async () => {
  const modelDir = await mkdtemp(join(tmpdir(), "broken-cross-encoder-"));
  try {
    await writeFile(join(modelDir, "model.onnx"), "not a model");
    await copyFile(join(MODEL_DIR, "tokenizer.json"), join(modelDir, "tokenizer.json"));
    const creation = createLocalReranker({ modelDir, compute });
    await expect(creation).rejects.toBeInstanceOf(RerankerUnavailableError);
    await expect(creation).rejects.toThrow(`The reranking model in ${modelDir} could not be loaded`);
  } finally {
    await rm(modelDir, { recursive: true, force: true });
  }
});

test("a model with another output than logits [batch, 1] fails at creation", async () => {
  const modelDir = await mkdtemp(join(tmpdir(), "embedding-not-cross-encoder-"));
  try {
    // The sentence-embedding model has the same inputs but answers last_hidden_state.
    await copyFile(join(MODEL_DIR, "model.onnx"), join(modelDir, "model.onnx"));
    await copyFile(join(MODEL_DIR, "tokenizer.json"), join(modelDir, "tokenizer.json"));
    await expect(createLocalReranker({ modelDir, compute })).rejects.toThrow("has no logits output");
  } finally {
    await rm(modelDir, { recursive: true, force: true });
  }
});
