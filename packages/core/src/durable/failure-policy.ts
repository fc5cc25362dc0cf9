import { LlmOutputError, LlmStallError, LlmUnavailableError } from "@als/ai";
import { ErasureInProgressError } from "@als/db";

/** Attempts of one run before it fails for good (the bounded retry policy). */
const MAX_RUN_ATTEMPTS = 5;
const RETRY_BASE_SECONDS = 10;

/** The worker has no LLM provider configured: no retry of the run can succeed. */
export class NoLlmProvider extends Error {}

/**
 * What a failed attempt leaves: a safe error code, and either a time to retry at or `null` (the run
 * fails for good). Failures the next attempt cannot fix (refused credentials or billing, no
 * provider) and `final` ones end the run; the rest retry with exponential backoff until the attempts
 * run out. `unexpected` carries what went wrong for the operator's log when it was not a provider's failure.
 */
export function settleFailure(
  error: unknown,
  attempts: number,
  now: number,
  options: { final?: boolean } = {},
): { code: string; retryAt: number | null; unexpected: string | undefined } {
  const code =
    error instanceof LlmStallError
      ? `provider_${error.kind}`
      : error instanceof NoLlmProvider
        ? "no_llm_provider"
        : error instanceof LlmOutputError
          ? "invalid_model_output"
          : error instanceof LlmUnavailableError
            ? "provider_unavailable"
            : // A user of the run is being erased: a later attempt finds nothing of them.
              error instanceof ErasureInProgressError
              ? "erasure_in_progress"
              : "internal_error";
  const unexpected = code === "internal_error" ? (error instanceof Error ? (error.stack ?? error.message) : String(error)) : undefined;
  const final = options.final || error instanceof LlmStallError || error instanceof NoLlmProvider || attempts >= MAX_RUN_ATTEMPTS;
  return { code, retryAt: final ? null : now + RETRY_BASE_SECONDS * 2 ** (attempts - 1), unexpected };
}
