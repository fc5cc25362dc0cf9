import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { createEmbedder, EmbedderUnavailableError } from "../src/index.ts";
import { startEmbeddingsServer, vectorFor } from "./openai-embeddings-test-server.ts";
import { dot, norm } from "./vectors.ts";

const server = startEmbeddingsServer();
afterAll(() => server.stop());
beforeEach(() => {
  server.requests.length = 0;
});

const options = { kind: "openai", baseUrl: server.baseUrl, apiKey: "sk-test", model: "test-embedder", dimensions: 384 } as const;

describe("OpenAI-compatible embedder against a local HTTP server", () => {
  test("posts model, input and dimensions with the API key, and returns unit vectors in input order", async () => {
    const embedder = await createEmbedder(options);
    expect(embedder.modelId).toBe("test-embedder");
    expect(embedder.dimensions).toBe(384);
    server.requests.length = 0;

    const texts = ["first text", "second text", "third text"];
    const vectors = await embedder.embedDocuments(texts);

    expect(server.requests).toEqual([{ authorization: "Bearer sk-test", body: { model: "test-embedder", input: texts, dimensions: 384 } }]);
    vectors.forEach((vector, i) => {
      expect(norm(vector)).toBeCloseTo(1, 10);
      const expected = vectorFor(texts[i]!, 384);
      expect(dot(vector, expected) / norm(expected)).toBeCloseTo(1, 10);
    });
    await embedder.close();
  });

  test("sends no Authorization header without an API key, and splits large batches", async () => {
    const { apiKey: _, ...withoutKey } = options;
    const embedder = await createEmbedder(withoutKey);
    server.requests.length = 0;
    const texts = Array.from({ length: 150 }, (_, i) => `text ${i}`);
    const vectors = await embedder.embedDocuments(texts);
    expect(server.requests.map((request) => request.body.input.length)).toEqual([64, 64, 22]);
    expect(server.requests.every((request) => request.authorization === null)).toBe(true);
    expect(dot(vectors[149]!, vectorFor("text 149", 384)) / norm(vectorFor("text 149", 384))).toBeCloseTo(1, 10);
  });

  test("retries a 500 and a timeout, then succeeds", async () => {
    const embedder = await createEmbedder({ ...options, timeoutMs: 200 });
    server.requests.length = 0;
    server.plan({ status: 500 }, { delayMs: 1_000 });
    const [vector] = await embedder.embedDocuments(["retry me"]);
    expect(norm(vector!)).toBeCloseTo(1, 10);
    expect(server.requests).toHaveLength(3);
  });

  test("does not retry a 400", async () => {
    const embedder = await createEmbedder(options);
    server.requests.length = 0;
    server.plan({ status: 400 });
    await expect(embedder.embedDocuments(["bad request"])).rejects.toThrow("400");
    expect(server.requests).toHaveLength(1);
  });

  test("rejects vectors of the wrong dimension, at creation and later", async () => {
    server.plan({ dimensions: 768 });
    const creation = createEmbedder(options);
    await expect(creation).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(creation).rejects.toThrow("returned 768 dimensions, 384 are required");

    const embedder = await createEmbedder(options);
    server.plan({ dimensions: 3 });
    await expect(embedder.embedDocuments(["changed model"])).rejects.toThrow("returned 3 dimensions, 384 are required");
  });

  test("an unreachable server fails creation, saying what to configure", async () => {
    const gone = startEmbeddingsServer();
    gone.stop();
    const creation = createEmbedder({ ...options, baseUrl: gone.baseUrl });
    await expect(creation).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(creation).rejects.toThrow("EMBEDDING_BASE_URL");
  });

  test("concurrent identical queries make one request; later ones are served from the cache", async () => {
    const embedder = await createEmbedder(options);
    server.requests.length = 0;
    const vectors = await Promise.all(Array.from({ length: 5 }, () => embedder.embedQuery("the same question")));
    expect(server.requests).toHaveLength(1);
    for (const vector of vectors) expect(vector).toEqual(vectors[0]!);
    expect(await embedder.embedQuery("the same question")).toEqual(vectors[0]!);
    expect(server.requests).toHaveLength(1);
  });

  test("a failed query is not cached", async () => {
    const embedder = await createEmbedder(options);
    server.requests.length = 0;
    server.plan({ status: 401 });
    await expect(embedder.embedQuery("unlucky")).rejects.toThrow("401");
    expect(norm(await embedder.embedQuery("unlucky"))).toBeCloseTo(1, 10);
    expect(server.requests).toHaveLength(2);
  });
});
