import { fileURLToPath } from "node:url";
import { createLocalReranker, type Reranker } from "@als/ai";
import { sharedComputePool } from "./compute.ts";

/**
 * The stand-in cross-encoder that scripts/make-test-cross-encoder.py writes: its score of a pair
 * is how many document tokens also occur in the query. Its tokenizer.json is a symlink to the
 * embedding model's (the same bert-base-uncased vocabulary), which scripts/install-model.sh installs.
 */
export const TINY_CROSS_ENCODER_DIR = fileURLToPath(new URL("../fixtures/tiny-cross-encoder", import.meta.url));

let shared: Promise<Reranker> | undefined;

/** A reranker over the tiny model on the shared compute pool, loaded once per test process. */
export function tinyReranker(): Promise<Reranker> {
  shared ??= createLocalReranker({ modelDir: TINY_CROSS_ENCODER_DIR, compute: sharedComputePool() });
  return shared;
}
