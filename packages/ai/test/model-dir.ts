import { fileURLToPath } from "node:url";

/** Where scripts/install-model.sh (run by scripts/bootstrap.sh) puts the real model. */
export const MODEL_DIR = fileURLToPath(new URL("../../../.cache/models/all-MiniLM-L6-v2-int8", import.meta.url));
