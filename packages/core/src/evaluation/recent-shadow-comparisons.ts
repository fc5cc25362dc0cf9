import type { RecentShadowComparisonsResponse } from "@als/contract";
import { evaluations, type Scope } from "@als/db";
import type { z } from "zod";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";

/** The contract's lookback of the recent shadow comparisons. */
export const SHADOW_LOOKBACK_SECONDS = 30 * 86_400;

/** The N most recent per-turn shadow verdicts of the last 30 days, under the pinned judge prompt version only; newest first. */
export async function recentShadowComparisons(
  deps: CoreDeps,
  scope: Scope,
  input: { limit: number; session_id?: string | undefined },
): Promise<z.input<typeof RecentShadowComparisonsResponse>> {
  const version = (await getProjectConfig(deps, scope)).shadow_comparison_judge_prompt_version;
  const rows = await evaluations.recentShadowVerdicts(
    deps.db,
    scope,
    { version, since: deps.now() - SHADOW_LOOKBACK_SECONDS, sessionId: input.session_id },
    input.limit,
  );
  return {
    judge_prompt_version: version,
    verdicts: rows.map((row) => ({
      verdict_id: row.verdict_id,
      interaction_id: row.interaction_id,
      session_id: row.session_id,
      user_id: row.user_id,
      agent_version: row.agent_version,
      judge_prompt_version: row.judge_prompt_version,
      output: { winner: row.winner, is_significantly_better: row.is_significantly_better, comparison_reason: row.comparison_reason },
      created_at: row.created_at,
    })),
  };
}
