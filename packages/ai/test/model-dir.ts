import { fileURLToPath } from "node:url";

/** Where scripts/install-model.sh (run by scripts/bootstrap.sh) puts the default model. */
export const MODEL_DIR = fileURLToPath(new URL("../../../.cache/models/e5-small-v2-int8", import.meta.url));
/** The former default, which stays selectable (scripts/test installs it). */
export const MINILM_MODEL_DIR = fileURLToPath(new URL("../../../.cache/models/all-MiniLM-L6-v2-int8", import.meta.url));
