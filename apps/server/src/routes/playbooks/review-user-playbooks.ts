import { ReviewUserPlaybooksRequest, ReviewUserPlaybooksResponse } from "@als/contract";
import { reviewUserPlaybooks as review } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { inBackground } from "../generation/in-background.ts";

export const reviewUserPlaybooks = defineOperation({
  procedure: "userPlaybooks.review",
  method: "POST",
  path: "/api/review_user_playbooks",
  summary: "Review the current user playbooks created in a time range: report decisions inline, or apply them in the background",
  input: ReviewUserPlaybooksRequest,
  output: ReviewUserPlaybooksResponse,
  // Report mode decides every playbook inline, one LLM call each: the contract's extended synchronous timeout.
  backstopMs: 300_000,
  async handle(ctx, input) {
    const { run_id, results } = await review(ctx.deps, ctx.scope, input, (work) => inBackground(ctx, `review run`, work));
    return {
      success: true,
      run_id,
      results: results.map((r) => ({ user_playbook_id: r.user_playbook_id, decision: r.decision, reason: r.reason, edited: r.edited ?? null })),
    };
  },
});
