import type { InputTokens, Llm, RenderedPrompt } from "@als/ai";
import type { InteractionRecord } from "@als/db";
import { FULL_TURNS, formatTurn, type TranscriptLimits } from "./transcript.ts";

/** The learning_status reason of a budget the configuration makes impossible to meet. */
export const INPUT_BUDGET_CONFIGURATION_ERROR = "input_budget_configuration_error";

/** Tokens of the context window kept for the model's reply (the extraction's JSON). */
export const REPLY_RESERVE_TOKENS = 4_096;

/** The second step of fitting: long turns and tool outputs are cut in the middle, with a marker. */
const CUT_TURNS: TranscriptLimits = { toolData: 200, text: 2_000 };

/** The window does not fit its budget even reduced: it is held for an operator. */
export class InputBudgetExceeded extends Error {
  constructor(
    /** What the smallest reduction (the last turn alone, cut) still needs. */
    readonly inputTokens: number,
    readonly budgetTokens: number,
  ) {
    super(`the window needs at least ${inputTokens} input tokens; its budget is ${budgetTokens}`);
  }
}

/** The configuration makes any window impossible to send (see inputBudgetOf); retried with backoff until it is fixed. */
export class InputBudgetConfigurationError extends Error {}

/**
 * The input budget of one extraction call: the project's (or a retry's larger one), which the model
 * must be able to take with room for its reply. A model whose context window nobody stated (the
 * known models, LLM_CONTEXT_WINDOW_TOKENS) cannot be budgeted: a configuration error.
 */
export function inputBudgetOf(llm: Llm, budgetTokens: number): number {
  const { contextWindow } = llm.inputTokens;
  if (contextWindow === null) {
    throw new InputBudgetConfigurationError(`the context window of model ${llm.model} is unknown: set LLM_CONTEXT_WINDOW_TOKENS`);
  }
  if (budgetTokens + REPLY_RESERVE_TOKENS > contextWindow) {
    throw new InputBudgetConfigurationError(
      `an input budget of ${budgetTokens} tokens leaves no room for the reply in the ${contextWindow}-token context of ${llm.model}`,
    );
  }
  return budgetTokens;
}

export interface FittedWindow {
  prompt: RenderedPrompt;
  inputTokens: number;
  /** What was done to fit, in order (empty: the window went whole). */
  reductions: string[];
}

/**
 * The extraction prompt of a window within `budget` input tokens, reduced in this order until it
 * fits: (1) the whole window; (2) every turn's text cut to 2,000 characters and tool data to 200,
 * in the middle with a marker; (3) with those cuts, the oldest turns left out one by one (a marker
 * says how many), down to the last turn alone. Deterministic: the same window and budget give the
 * same prompt. Throws InputBudgetExceeded when even the last turn does not fit, and
 * InputBudgetConfigurationError when the prompt without any transcript does not.
 */
export function fitWindow(
  tokens: InputTokens,
  budget: number,
  render: (transcript: string) => RenderedPrompt,
  window: readonly InteractionRecord[],
): FittedWindow {
  const measure = (prompt: RenderedPrompt) => tokens.count(prompt.system) + tokens.count(prompt.user);
  const fixed = measure(render(""));
  if (fixed >= budget) throw new InputBudgetConfigurationError(`the prompt alone takes ${fixed} input tokens; the budget is ${budget}`);

  const attempt = (turns: readonly InteractionRecord[], limits: TranscriptLimits, leftOut: number) => {
    const marker = leftOut > 0 ? `[${leftOut} earlier turns of this window were left out to fit the input budget]\n` : "";
    const prompt = render(marker + turns.map((turn, index) => formatTurn(turn, leftOut + index + 1, limits)).join("\n"));
    return { prompt, inputTokens: measure(prompt) };
  };
  const whole = attempt(window, FULL_TURNS, 0);
  if (whole.inputTokens <= budget) return { ...whole, reductions: [] };
  const cut = attempt(window, CUT_TURNS, 0);
  if (cut.inputTokens <= budget) return { ...cut, reductions: ["long turns and tool outputs cut"] };
  // Each turn's share, measured once: the search for how many to leave out does not re-tokenize the window each time.
  const shares = window.map((turn, index) => tokens.count(formatTurn(turn, index + 1, CUT_TURNS)) + 1);
  let total = shares.reduce((sum, share) => sum + share, fixed);
  for (let leftOut = 1; leftOut < window.length; leftOut++) {
    total -= shares[leftOut - 1]!;
    if (total > budget) continue;
    // The sum of shares is close to, not exactly, the joined text's count: confirm on the real prompt.
    const fitted = attempt(window.slice(leftOut), CUT_TURNS, leftOut);
    if (fitted.inputTokens <= budget) return { ...fitted, reductions: ["long turns and tool outputs cut", `${leftOut} oldest turns left out`] };
  }
  throw new InputBudgetExceeded(attempt(window.slice(-1), CUT_TURNS, window.length - 1).inputTokens, budget);
}
