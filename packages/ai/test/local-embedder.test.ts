import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEmbedder, type Embedder } from "../src/index.ts";
import { MODEL_DIR } from "./model-dir.ts";
import { dot, norm } from "./vectors.ts";

let embedder: Embedder;
beforeAll(async () => {
  embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR, poolSize: 2 });
});
afterAll(() => embedder?.close());

describe("local embedder (all-MiniLM-L6-v2 int8 on onnxruntime)", () => {
  test("names its model and produces 384-dimension unit vectors", async () => {
    expect(embedder.modelId).toBe("all-MiniLM-L6-v2-int8");
    expect(embedder.dimensions).toBe(384);
    const [vector] = await embedder.embedDocuments(["The cat sat on the mat."]);
    expect(vector).toHaveLength(384);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  test("places texts by meaning", async () => {
    const [puppies, dogs, revenue] = await embedder.embedDocuments(["I adore puppies", "dogs are my favourite animal", "quarterly revenue fell"]);
    expect(dot(puppies!, dogs!)).toBeGreaterThan(dot(puppies!, revenue!) + 0.3);
  });

  test("a batch gives each text the vector it gets alone, in input order", async () => {
    // Lengths vary so that the batch is reordered and padded internally.
    const texts = Array.from({ length: 70 }, (_, i) => `sentence ${i} ${"about rivers and mountains ".repeat(i % 7)}`.trim());
    const batch = await embedder.embedDocuments(texts);
    const alone = await Promise.all(texts.map(async (text) => (await embedder.embedDocuments([text]))[0]!));
    expect(batch).toHaveLength(texts.length);
    for (const [i, vector] of batch.entries()) expect(dot(vector, alone[i]!)).toBeGreaterThan(0.99999);
  });

  test("truncates long texts instead of failing", async () => {
    const [long] = await embedder.embedDocuments(["word ".repeat(5_000)]);
    expect(norm(long!)).toBeCloseTo(1, 5);
  });

  test("embeds nothing for no texts", async () => {
    expect(await embedder.embedDocuments([])).toEqual([]);
  });

  test("a cached query returns the same vector the documents path computes", async () => {
    const query = "where can I adopt a puppy?";
    const first = await embedder.embedQuery(query);
    const second = await embedder.embedQuery(query);
    const [document] = await embedder.embedDocuments([query]);
    expect(second).toEqual(first);
    expect(dot(first, document!)).toBeGreaterThan(0.99999);
  });
});
