import { QdrantVectorIndex } from "../src/index.ts";
import { vectorIndexContract } from "./vector-index.contract.ts";

// No Qdrant server ships with the test machines: the case runs where QDRANT_URL points at one.
const url = process.env.QDRANT_URL;
const apiKey = process.env.QDRANT_API_KEY;
if (!url) console.warn("QdrantVectorIndex contract skipped: QDRANT_URL is unset (point it at a Qdrant server to run it)");

vectorIndexContract(
  "QdrantVectorIndex",
  async () => {
    const index = new QdrantVectorIndex({ url: url!, ...(apiKey && { apiKey }) });
    const written = new Map<string, Parameters<typeof index.delete>[1][number]>();
    return {
      index,
      async put(points) {
        for (const point of points) written.set(JSON.stringify([point.scope, point.id]), point);
        await index.upsert("profiles", points);
      },
      remove: (refs) => index.delete("profiles", refs),
      // The points of this run's organisation go again; the collections stay for the next run.
      close: () => index.delete("profiles", [...written.values()]),
    };
  },
  url ? undefined : "QDRANT_URL is unset",
);
