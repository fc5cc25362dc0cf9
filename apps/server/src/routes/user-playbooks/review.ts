import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { reviewUserPlaybooks } from "@als/core";

export default implement(endpoints.userPlaybooks.review, {
  async handle(ctx, input) {
    const { run_id, results } = await reviewUserPlaybooks(ctx.deps, ctx.scope, input);
    return {
      success: true,
      run_id,
      results: results.map((r) => ({ user_playbook_id: r.user_playbook_id, decision: r.decision, reason: r.reason, edited: r.edited ?? null })),
    };
  },
});
