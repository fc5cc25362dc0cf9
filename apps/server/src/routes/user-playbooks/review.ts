import { endpoints } from "@als/contract";
import { reviewUserPlaybooks } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.userPlaybooks.review, {
  async handle(ctx, input) {
    const { run_id, results, selected } = await reviewUserPlaybooks(ctx.deps, ctx.scope, input);
    const count = (decision: string) => results.filter((r) => r.decision === decision).length;
    return {
      success: true,
      run_id,
      results: results.map((r) => ({
        user_playbook_id: r.user_playbook_id,
        decision: r.decision,
        reason: r.reason,
        reason_code: r.reason_code,
        edited: r.edited ?? null,
        edit: r.edited ?? null,
      })),
      report_only: input.report_only,
      selected_count: selected,
      accepted_count: count("accept"),
      edited_count: count("edit"),
      rejected_count: count("reject"),
      skipped_count: count("skip"),
    };
  },
});
