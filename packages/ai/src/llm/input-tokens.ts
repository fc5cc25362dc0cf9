import { createRequire } from "node:module";

// An encoding is loaded when a process is configured with an OpenAI model that uses it, not at
// import: its tables take seconds to parse, which every server, worker and CLI process paid at start
// whatever its provider.
const require = createRequire(import.meta.url);
type Encoding = typeof import("gpt-tokenizer/encoding/o200k_base");
const counterOf = (encoding: "o200k_base" | "cl100k_base") => (require(`gpt-tokenizer/encoding/${encoding}`) as Encoding).countTokens;

/**
 * How a model's input is measured against a budget: `count` is the real tokenizer of the model where
 * one is published (OpenAI's, through gpt-tokenizer), else a conservative estimate; `contextWindow`
 * is what the model accepts in one call, null when neither the known models nor the settings say.
 */
export interface InputTokens {
  count(text: string): number;
  /** False: `count` estimates (one token per 2.5 bytes of UTF-8, at least what the tokenizers in use yield for prose, code or JSON). */
  readonly exact: boolean;
  readonly contextWindow: number | null;
}

/**
 * Bytes per token of the estimate: English prose runs about 4.5 bytes a token, code about 3, JSON
 * full of short keys and numbers about 2.6 (measured with o200k_base in input-tokens.test.ts): the
 * estimate must not undercount, so it takes the densest.
 */
const ESTIMATE_BYTES_PER_TOKEN = 2.5;

const encoder = new TextEncoder();
const estimate = (text: string) => Math.ceil(encoder.encode(text).length / ESTIMATE_BYTES_PER_TOKEN);

/** Context windows of the models the service names by default or that users commonly configure (model name prefixes). */
const KNOWN_CONTEXT_WINDOWS: readonly [prefix: string, tokens: number][] = [
  ["gpt-4.1", 1_047_576],
  ["gpt-5", 400_000],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-3.5-turbo", 16_385],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4", 200_000],
  ["claude-", 200_000],
];

/** OpenAI models by tokenizer: o200k_base for the 4o generation and later, cl100k_base before. */
function openAiCounter(model: string): ((text: string) => number) | undefined {
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o)/.test(model)) return counterOf("o200k_base");
  if (/^(gpt-4|gpt-3\.5)/.test(model)) return counterOf("cl100k_base");
  return undefined;
}

/**
 * The input measure of `model`: an OpenAI model's own tokenizer for provider `openai`, the estimate
 * otherwise (Anthropic publishes no tokenizer; an OpenAI-compatible server may run anything);
 * `contextWindow` from the settings (LLM_CONTEXT_WINDOW_TOKENS) or the known models.
 */
export function inputTokensOf(provider: "openai" | "anthropic" | "openai-compatible", model: string, configuredContextWindow?: number): InputTokens {
  const exact = provider === "openai" ? openAiCounter(model) : undefined;
  const known = KNOWN_CONTEXT_WINDOWS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? null;
  return { count: exact ?? estimate, exact: exact !== undefined, contextWindow: configuredContextWindow ?? known };
}
