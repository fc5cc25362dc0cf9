import { endpoints } from "@als/contract";
import { recoverHeldWindow } from "@als/core";
import { actorRefOf } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.learning.recoverHeldWindow, {
  async handle({ deps, principal, scope }, input) {
    const recovery = input.action === "skip" ? ({ action: "skip" } as const) : ({ action: "retry", budgetTokens: input.budget_tokens! } as const);
    const recovered = await recoverHeldWindow(deps, scope, { userId: input.user_id, extractor: input.extractor, actorRef: actorRefOf(principal) }, recovery);
    return { success: true, action: input.action, recovered };
  },
});
