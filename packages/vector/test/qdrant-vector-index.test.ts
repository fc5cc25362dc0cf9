import { qdrantSkipReason, testQdrant } from "@als/test-support/qdrant.ts";
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
