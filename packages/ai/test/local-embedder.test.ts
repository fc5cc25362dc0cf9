import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbedder, type Embedder } from "../src/index.ts";
import { MINILM_MODEL_DIR, MODEL_DIR } from "./model-dir.ts";
import { dot, norm } from "./vectors.ts";

let embedder: Embedder;
beforeAll(async () => {
  embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR, poolSize: 2 });
});
afterAll(() => embedder?.close());

describe("local embedder (e5-small-v2 int8 on onnxruntime)", () => {
  test("names its model, takes its floor from the manifest and produces 384-dimension unit vectors", async () => {
    expect(embedder.modelId).toBe("e5-small-v2-int8");
    expect(embedder.dimensions).toBe(384);
    const manifest = JSON.parse(await readFile(join(MODEL_DIR, "manifest.json"), "utf8"));
    expect(embedder.defaultThreshold).toBe(manifest.defaultThreshold);
    const [vector] = await embedder.embedDocuments(["The cat sat on the mat."]);
    expect(vector).toHaveLength(384);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  test("places texts by meaning", async () => {
    const [puppies, dogs, revenue] = await embedder.embedDocuments(["I adore puppies", "dogs are my favourite animal", "quarterly revenue fell"]);
    // e5 puts any two English sentences above 0.7 or so: the margin is small in absolute terms.
    expect(dot(puppies!, dogs!)).toBeGreaterThan(dot(puppies!, revenue!) + 0.1);
  });

  test("a batch gives each text the vector it gets alone, in input order", async () => {
    // Lengths vary so that the batch is reordered and padded internally.
    const texts = Array.from({ length: 70 }, (_, i) => `sentence ${i} ${"about rivers and mountains ".repeat(i % 7)}`.trim());
    const batch = await embedder.embedDocuments(texts);
    const alone = await Promise.all(texts.map(async (text) => (await embedder.embedDocuments([text]))[0]!));
    expect(batch).toHaveLength(texts.length);
    // Not bit-identical: e5's int8 export quantizes activations dynamically, with one scale per
    // tensor, so the other texts of a batch (and its padding) move each vector slightly.
    for (const [i, vector] of batch.entries()) expect(dot(vector, alone[i]!)).toBeGreaterThan(0.99);
  });

  test("truncates long texts instead of failing", async () => {
    const [long] = await embedder.embedDocuments(["word ".repeat(5_000)]);
    expect(norm(long!)).toBeCloseTo(1, 5);
  });

  test("embeds nothing for no texts", async () => {
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  test("a query is embedded with the query prefix, a stored text with the document prefix", async () => {
    const query = "where can I adopt a puppy?";
    const first = await embedder.embedQuery(query);
    expect(await embedder.embedQuery(query)).toEqual(first);
    const [asDocument] = await embedder.embedDocuments([query]);
    expect(dot(first, asDocument!)).toBeLessThan(0.99);
    // A model dir whose manifest has no document prefix shows what the query path prepended.
    const bare = await withManifest(MODEL_DIR, { documentPrefix: "" });
    const unprefixed = await createEmbedder({ kind: "local", modelDir: bare.dir, poolSize: 1 });
    try {
      const [prefixedByHand] = await unprefixed.embedDocuments([`query: ${query}`]);
      expect(dot(first, prefixedByHand!)).toBeGreaterThan(0.99999);
    } finally {
      await unprefixed.close();
      await bare.remove();
    }
  });
});

test("all-MiniLM-L6-v2 stays selectable: no prefixes, its own floor", async () => {
  const minilm = await createEmbedder({ kind: "local", modelDir: MINILM_MODEL_DIR, poolSize: 1 });
  try {
    expect(minilm.modelId).toBe("all-MiniLM-L6-v2-int8");
    expect(minilm.defaultThreshold).toBe(0.1);
    const query = "where can I adopt a puppy?";
    const [document] = await minilm.embedDocuments([query]);
    expect(dot(await minilm.embedQuery(query), document!)).toBeGreaterThan(0.99999);
  } finally {
    await minilm.close();
  }
});

/** A copy of a model dir (its files linked) whose manifest has `changes` applied. */
async function withManifest(modelDir: string, changes: Record<string, unknown>) {
  const dir = await mkdtemp(join(tmpdir(), "model-"));
  const manifest = JSON.parse(await readFile(join(modelDir, "manifest.json"), "utf8"));
  for (const name of Object.keys(manifest.files)) await symlink(join(modelDir, name), join(dir, name));
  await writeFile(join(dir, "manifest.json"), JSON.stringify({ ...manifest, ...changes }));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
