import { createEmbedder, type Embedder } from "@als/ai";

export const TEST_MODEL_DIR = new URL("../../.cache/models/e5-small-v2-int8", import.meta.url).pathname;
/** The former default, for the tests that pin it deliberately (each says why); scripts/test installs it. */
export const MINILM_MODEL_DIR = new URL("../../.cache/models/all-MiniLM-L6-v2-int8", import.meta.url).pathname;

const shared = new Map<string, Promise<Embedder>>();

/** The real local model (the default unless `modelDir` names another), loaded once per test process and shared by every test file. */
export function sharedEmbedder(modelDir = TEST_MODEL_DIR): Promise<Embedder> {
  let embedder = shared.get(modelDir);
  if (!embedder) {
    embedder = createEmbedder({ kind: "local", modelDir });
    shared.set(modelDir, embedder);
  }
  return embedder;
}
