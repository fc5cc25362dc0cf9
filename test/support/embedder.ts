import { createEmbedder, type Embedder } from "@als/ai";
import { sharedProcessActivity } from "./process-activity.ts";

export const TEST_MODEL_DIR = new URL("../../.cache/models/e5-small-v2-int8", import.meta.url).pathname;

let shared: Promise<Embedder> | undefined;

/** The real local model, loaded once per test process and shared by every test file. */
export function sharedEmbedder(): Promise<Embedder> {
  shared ??= createEmbedder({ kind: "local", modelDir: TEST_MODEL_DIR }, sharedProcessActivity().embeddingPools);
  return shared;
}
