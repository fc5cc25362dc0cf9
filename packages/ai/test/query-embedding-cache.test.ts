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
