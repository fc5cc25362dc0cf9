export { createEmbedder } from "./create-embedder.ts";
export type { Embedder, EmbedderOptions } from "./embedder.ts";
export { EmbedderUnavailableError } from "./embedder-unavailable-error.ts";
