import type { z } from "zod";
import type { InputTokens } from "./input-tokens.ts";

export interface LlmUsage {
  model: string;
  /** Summed over every reply the provider billed, including replies rejected by the schema and retried. */
  inputTokens: number;
  outputTokens: number;
  /** USD; null when the model's price is unknown */
  costUsd: number | null;
}

export interface LlmObjectRequest<S extends z.ZodType> {
  system: string;
  user: string;
  /** Plain data only (no transforms): it is sent to the provider as JSON Schema. Prefer nullable to optional, which strict mode cannot express. */
  schema: S;
  /** snake_case name sent to the provider as the schema/tool name, e.g. "profile_extraction" */
  schemaName: string;
  signal?: AbortSignal;
}

export interface LlmTextRequest {
  system: string;
  user: string;
  signal?: AbortSignal;
}

export interface Llm {
  readonly provider: "openai" | "anthropic" | "openai-compatible";
  readonly model: string;
  /** How an input is measured against a budget, and what the model accepts in one call. */
  readonly inputTokens: InputTokens;
  /**
   * Structured output: the provider is asked for JSON matching the schema; the reply is parsed and
   * validated with zod. An invalid reply is retried (counts as transient) and finally throws LlmOutputError.
   */
  generateObject<S extends z.ZodType>(request: LlmObjectRequest<S>): Promise<{ value: z.output<S>; usage: LlmUsage }>;
  generateText(request: LlmTextRequest): Promise<{ text: string; usage: LlmUsage }>;
}

/**
 * The provider refused the credentials (401/403, invalid_api_key) or the account cannot pay (402,
 * insufficient_quota, billing). Never retried: the service records a learning stall. The message is
 * safe to show: it holds no key and no prompt text.
 */
export class LlmStallError extends Error {
  override readonly name = "LlmStallError";
  constructor(
    readonly kind: "auth" | "billing",
    message: string,
  ) {
    super(message);
  }
}

/** Retries ran out on transient failures (429 rate limit, 5xx, network, timeouts), or the provider rejected the request. */
export class LlmUnavailableError extends Error {
  override readonly name = "LlmUnavailableError";
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "llm_unavailable";
}

/** The model's reply never matched the schema. */
export class LlmOutputError extends Error {
  override readonly name = "LlmOutputError";
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "llm_unavailable";
}
