export { createEmbedder } from "./create-embedder.ts";
export type { Embedder, EmbedderOptions } from "./embedder.ts";
export { EmbedderUnavailableError } from "./embedder-unavailable-error.ts";
export { createLlm, type LlmSettings } from "./llm/create-llm.ts";
export { LlmOutputError, LlmStallError, LlmUnavailableError, type Llm, type LlmObjectRequest, type LlmTextRequest, type LlmUsage } from "./llm/llm.ts";
export { renderPrompt, type RenderedPrompt } from "./llm/prompt-files.ts";
export { costOf } from "./llm/llm-prices.ts";
