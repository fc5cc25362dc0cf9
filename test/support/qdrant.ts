import { randomUUID } from "node:crypto";
import { COLLECTION_NAMES, type Collection, type QdrantSettings, QdrantVectorIndex } from "@als/vector";

/**
 * A Qdrant server for the tests that need one: none ships with the test machines, so those tests
 * run where QDRANT_URL points at one and are skipped, saying so in their names, elsewhere.
 */
export const qdrantUrl = process.env.QDRANT_URL;
export const qdrantSkipReason = qdrantUrl ? undefined : "QDRANT_URL is unset";
if (!qdrantUrl) console.warn("Qdrant tests skipped: QDRANT_URL is unset (point it at a Qdrant server to run them)");

/** Collections of a test's own on the server (a fresh prefix), and what the server holds in them, read over its REST API. */
export function testQdrant() {
  const settings: QdrantSettings = {
    url: qdrantUrl!,
    ...(process.env.QDRANT_API_KEY && { apiKey: process.env.QDRANT_API_KEY }),
    collectionPrefix: `als_test_${randomUUID().slice(0, 8)}_`,
  };
  const request = async (method: string, path: string, body?: object) => {
    const response = await fetch(`${settings.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(settings.apiKey && { "api-key": settings.apiKey }) },
      ...(body && { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`Qdrant ${method} ${path}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { result: any }).result;
  };
  const name = (collection: Collection) => `${settings.collectionPrefix}${collection}`;
  return {
    settings,
    index: () => new QdrantVectorIndex(settings),
    /** The points of the collection whose payload `key` is `value` (all of them without a key), counted exactly. */
    async count(collection: Collection, match?: { key: string; value: string }): Promise<number> {
      const filter = match && { must: [{ key: match.key, match: { value: match.value } }] };
      return (await request("POST", `/collections/${name(collection)}/points/count`, { exact: true, ...(filter && { filter }) })).count;
    },
    /** Removes the test's collections, as a Qdrant server that lost its storage would be. */
    async drop(): Promise<void> {
      for (const collection of COLLECTION_NAMES) await request("DELETE", `/collections/${name(collection)}`);
    },
  };
}

export type TestQdrant = ReturnType<typeof testQdrant>;
