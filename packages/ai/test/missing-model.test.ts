import { expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbedder, EmbedderUnavailableError } from "../src/index.ts";

test("a missing model fails at creation, saying how to install it", async () => {
  const modelDir = join(tmpdir(), "no-model-here");
  const creation = createEmbedder({ kind: "local", modelDir });
  await expect(creation).rejects.toBeInstanceOf(EmbedderUnavailableError);
  await expect(creation).rejects.toThrow("scripts/install-model.sh");
  await expect(creation).rejects.toThrow(modelDir);
});

test("a model dir whose model files are missing fails at creation, not on the first request", async () => {
  const modelDir = await mkdtemp(join(tmpdir(), "broken-model-"));
  try {
    await writeFile(
      join(modelDir, "manifest.json"),
      JSON.stringify({
        modelId: "e5-small-v2-int8",
        dimensions: 384,
        maxSequenceLength: 512,
        pooling: "mean",
        queryPrefix: "query: ",
        documentPrefix: "passage: ",
        defaultThreshold: 0.7,
        files: {},
      }),
    );
    const creation = createEmbedder({ kind: "local", modelDir, poolSize: 1 });
    await expect(creation).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(creation).rejects.toThrow("install-model.sh");
  } finally {
    await rm(modelDir, { recursive: true, force: true });
  }
});

test("a manifest of an older install (no prefixes, pooling or floor) fails at creation, naming what is missing", async () => {
  const modelDir = await mkdtemp(join(tmpdir(), "old-manifest-"));
  try {
    await writeFile(join(modelDir, "manifest.json"), JSON.stringify({ modelId: "all-MiniLM-L6-v2-int8", dimensions: 384, maxSequenceLength: 256 }));
    const creation = createEmbedder({ kind: "local", modelDir, poolSize: 1 });
    await expect(creation).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(creation).rejects.toThrow("defaultThreshold");
    await expect(creation).rejects.toThrow("reinstall");
  } finally {
    await rm(modelDir, { recursive: true, force: true });
  }
});
