import { AppError } from "@als/contract";
import { type Extractor, type HeldWindow, heldWindows, type Recovery, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Recovers the window the user's extractor holds (see heldWindows.recoverHeldWindow) and wakes
 * learning for the user. 404 when it holds none; 422 when a retry's budget is not larger than the
 * one the window did not fit.
 */
export async function recoverHeldWindow(
  deps: CoreDeps,
  scope: Scope,
  target: { userId: string; extractor: Extractor; actorRef: string },
  recovery: Recovery,
): Promise<HeldWindow> {
  const recovered = await deps.db.transaction(async (tx) => {
    const [held] = (await heldWindows.listHeldWindows(tx, scope, target.userId)).filter((window) => window.extractor === target.extractor);
    if (!held) throw AppError.notFound(`a held ${target.extractor} window of user '${target.userId}'`);
    if (recovery.action === "retry" && recovery.budgetTokens <= held.budget_tokens) {
      throw AppError.validation([
        { loc: ["body", "budget_tokens"], msg: `must be larger than the budget the window was held at (${held.budget_tokens})`, type: "value_error" },
      ]);
    }
    // Read under this transaction, so a concurrent recovery of the same window loses the UPDATE and answers 404.
    if (!(await heldWindows.recoverHeldWindow(tx, scope, held, { ...recovery, actorRef: target.actorRef }, deps.now()))) {
      throw AppError.notFound(`a held ${target.extractor} window of user '${target.userId}'`);
    }
    return held;
  });
  await deps.orchestrator?.schedule("learning", scope, target.userId);
  return recovered;
}
