import { afterAll, expect, test } from "bun:test";
import { createOpenAiCompatibleEmbeddingProvider } from "../src/openai-compatible-embedding-provider.ts";
import { withQueryCache } from "../src/query-embedding-cache.ts";
import { startEmbeddingsServer } from "./openai-embeddings-test-server.ts";

const server = startEmbeddingsServer();
afterAll(() => server.stop());

test("the query cache evicts the least recently used query beyond its bound", async () => {
  const provider = createOpenAiCompatibleEmbeddingProvider({ baseUrl: server.baseUrl, model: "test-embedder", dimensions: 8 });
  const embedder = withQueryCache(provider, 2);
  const asked = () => server.requests.map((request) => request.body.input[0]);

  await embedder.embedQuery("a");
  await embedder.embedQuery("b");
  await embedder.embedQuery("a"); // hit: "b" becomes the least recently used
  await embedder.embedQuery("c"); // evicts "b"
  await embedder.embedQuery("a"); // still cached
  await embedder.embedQuery("b"); // computed again
  expect(asked()).toEqual(["a", "b", "c", "b"]);
});

test("a computation shared by callers stops only once every caller waiting for it gave up", async () => {
  const started: { text: string; signal: AbortSignal | undefined; finish: () => void }[] = [];
  const embedder = withQueryCache(
    {
      modelId: "fake",
      dimensions: 1,
      defaultThreshold: 0,
      calibration: { clusteringSimilarity: 0.8, deduplicationThreshold: 0.85 },
      embedDocuments: async () => [],
      embedQueries: (texts, options) =>
        new Promise<number[][]>((resolve, reject) => {
          started.push({ text: texts[0]!, signal: options?.signal, finish: () => resolve([[1]]) });
          options?.signal?.addEventListener("abort", () => reject(options.signal!.reason));
        }),
      close: async () => {},
    },
    8,
  );
  const first = new AbortController();
  const second = new AbortController();
  const a1 = embedder.embedQuery("shared", { signal: first.signal });
  const a2 = embedder.embedQuery("shared", { signal: second.signal });
  first.abort(new Error("first gave up"));
  await expect(a1).rejects.toThrow("first gave up");
  expect(started[0]!.signal!.aborted).toBe(false);
  started[0]!.finish();
  expect(await a2).toEqual([1]);

  const alone = new AbortController();
  const b = embedder.embedQuery("alone", { signal: alone.signal });
  alone.abort(new Error("gave up"));
  await expect(b).rejects.toThrow("gave up");
  expect(started[1]!.signal!.aborted).toBe(true);
  // The stopped computation is not cached: the next caller computes it again.
  const again = embedder.embedQuery("alone");
  expect(started).toHaveLength(3);
  started[2]!.finish();
  expect(await again).toEqual([1]);
  // An aborted signal refuses at once, without computing.
  await expect(embedder.embedQuery("never", { signal: AbortSignal.abort(new Error("already")) })).rejects.toThrow("already");
  expect(started).toHaveLength(3);
});
