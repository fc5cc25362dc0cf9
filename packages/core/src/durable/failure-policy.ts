import { LlmOutputError, LlmStallError, LlmUnavailableError } from "@als/ai";
import { ErasureInProgressError, heldWindows } from "@als/db";
import { INPUT_BUDGET_CONFIGURATION_ERROR, InputBudgetConfigurationError, InputBudgetExceeded } from "../learning/input-budget.ts";

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
              : error instanceof InputBudgetExceeded
                ? heldWindows.INPUT_BUDGET_EXCEEDED
                : error instanceof InputBudgetConfigurationError
                  ? INPUT_BUDGET_CONFIGURATION_ERROR
                  : "internal_error";
  const unexpected = code === "internal_error" ? (error instanceof Error ? (error.stack ?? error.message) : String(error)) : undefined;
  // A window over its budget stays over it: the run ends with the code (learning holds such a window instead).
  const final =
    options.final || error instanceof LlmStallError || error instanceof NoLlmProvider || error instanceof InputBudgetExceeded || attempts >= MAX_RUN_ATTEMPTS;
  return { code, retryAt: final ? null : now + RETRY_BASE_SECONDS * 2 ** (attempts - 1), unexpected };
}
