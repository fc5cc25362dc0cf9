import { expect, test } from "bun:test";
import { qdrantSkipReason, testQdrant } from "@als/test-support/qdrant.ts";
import { QdrantVectorIndex, VectorIndexUnavailableError } from "../src/index.ts";
import { vectorIndexContract } from "./vector-index.contract.ts";

vectorIndexContract(
  "QdrantVectorIndex",
  async () => {
    const qdrant = testQdrant();
    const index = qdrant.index();
    return {
      index,
      put: (points) => index.upsert("profiles", points),
      remove: (refs) => index.delete("profiles", refs),
      close: () => qdrant.drop(),
    };
  },
  qdrantSkipReason,
);

test("a Qdrant that takes the connection but never answers is unavailable once the request's time is up", async () => {
  const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  try {
    const index = new QdrantVectorIndex({ url: `http://127.0.0.1:${silent.port}`, timeoutMs: 300 });
    const started = performance.now();
    const search = index.search("profiles", { vector: new Array(384).fill(0.05), filter: { scope: { orgId: "o", projectId: "p" }, must: [] }, topK: 1 });
    await expect(search).rejects.toBeInstanceOf(VectorIndexUnavailableError);
    expect(performance.now() - started).toBeLessThan(5000);
  } finally {
    silent.stop(true);
  }
});

test("searches ask Qdrant for uncompressed answers: a compressed one is written in two parts, the second often held 40 ms by delayed ACKs", async () => {
  const encodings: (string | null)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      encodings.push(request.headers.get("accept-encoding"));
      return Response.json({ status: "ok", time: 0, result: { points: [] } });
    },
  });
  try {
    const index = new QdrantVectorIndex({ url: `http://127.0.0.1:${server.port}` });
    await index.search("profiles", { vector: new Array(384).fill(0.05), filter: { scope: { orgId: "o", projectId: "p" }, must: [] }, topK: 1 });
    expect(encodings).toEqual(["identity"]);
  } finally {
    server.stop(true);
  }
});
