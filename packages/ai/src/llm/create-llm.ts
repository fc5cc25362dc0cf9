import { AnthropicMessagesProvider } from "./anthropic-messages-provider.ts";
import { inputTokensOf } from "./input-tokens.ts";
import type { Llm } from "./llm.ts";
import { OpenAiChatProvider } from "./openai-chat-provider.ts";

export type LlmSettings = {
  kind: "openai" | "anthropic" | "openai-compatible";
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** Tries of one call, the first included (default 4). */
  attempts?: number;
  /** Per attempt (default 60 s). */
  timeoutMs?: number;
  /** First backoff (default 1 s); tests shorten it. */
  baseDelayMs?: number;
  /** The model's context window in tokens, for a model the service does not know (LLM_CONTEXT_WINDOW_TOKENS). */
  contextWindowTokens?: number;
};

const DEFAULT_BASE_URLS = { openai: "https://api.openai.com/v1", anthropic: "https://api.anthropic.com/v1" } as const;

/** The LLM client of the configured provider. */
export function createLlm(settings: LlmSettings): Llm {
  const http = { attempts: settings.attempts ?? 4, timeoutMs: settings.timeoutMs ?? 60_000, baseDelayMs: settings.baseDelayMs ?? 1_000 };
  if (settings.kind === "anthropic") {
    if (!settings.apiKey) throw new Error("the anthropic provider needs an API key");
    return new AnthropicMessagesProvider(
      settings.model,
      settings.baseUrl ?? DEFAULT_BASE_URLS.anthropic,
      settings.apiKey,
      http,
      inputTokensOf("anthropic", settings.model, settings.contextWindowTokens),
    );
  }
  const baseUrl = settings.baseUrl ?? (settings.kind === "openai" ? DEFAULT_BASE_URLS.openai : undefined);
  if (!baseUrl) throw new Error("an openai-compatible provider needs a base URL");
  const inputTokens = inputTokensOf(settings.kind, settings.model, settings.contextWindowTokens);
  return new OpenAiChatProvider(settings.kind, settings.model, baseUrl.replace(/\/+$/, ""), settings.apiKey, http, inputTokens);
}
