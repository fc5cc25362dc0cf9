// Run by node-runtime.test.ts with `node --import tsx`, the way the Temporal worker runs: proves
// that the worker-thread pool loads and embeds under Node 20, then shuts down cleanly.
import { createEmbedder } from "../src/index.ts";
import { MODEL_DIR } from "./model-dir.ts";
import { dot, norm } from "./vectors.ts";

const embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR, poolSize: 2 });
const [puppies, dogs, revenue] = await embedder.embedDocuments(["I adore puppies", "dogs are my favourite animal", "quarterly revenue fell"]);
const query = await embedder.embedQuery("I adore puppies");
await embedder.close();
console.log(
  JSON.stringify({
    node: process.versions.node,
    bun: "bun" in process.versions,
    modelId: embedder.modelId,
    dimensions: puppies!.length,
    norm: norm(puppies!),
    close: dot(puppies!, dogs!),
    far: dot(puppies!, revenue!),
    query: dot(query, puppies!),
  }),
);
