import { resolve } from "node:path";
import { loadSettings } from "@als/core";

/**
 * The directory of the service's default local model (the EMBEDDING_MODEL_DIR default), taken from
 * the repository root so that a bench runs from any directory and follows a change of default.
 */
export function defaultModelDir(root: string): string {
  const { embedding } = loadSettings({});
  if (embedding.kind !== "local") throw new Error("the default embedding provider is not the local model");
  return resolve(root, embedding.modelDir);
}
