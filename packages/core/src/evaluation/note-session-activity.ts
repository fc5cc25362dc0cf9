import type { InteractionItem } from "@als/contract";
import { evaluations, type RequestRecord, type Scope, type Sql } from "@als/db";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { DEFAULT_SESSION_INACTIVITY_SECONDS } from "../learning/learning-step.ts";
import { sessionSampling } from "./sampling.ts";

/**
 * Notes, in the publish's transaction, that a session some evaluation wants moved: a session
 * sampled by agent_success_config, or whose responses carry shadow_content, is graded once it has
 * been quiet for the session inactivity delay (evaluation_only included: it does not bypass the
 * delay). Returns true when the session was not waiting before, so its orchestrator must be told.
 */
export async function noteEvaluationActivity(
  deps: CoreDeps,
  tx: Sql,
  scope: Scope,
  config: ProjectConfig,
  request: RequestRecord,
  items: readonly InteractionItem[],
): Promise<boolean> {
  const sampled = sessionSampling(config, request.session_id, request.evaluation_only);
  const hasShadow = items.some((item) => item.shadow_content.trim() !== "");
  if (!sampled.success && !sampled.learnings && !hasShadow) return false;
  const inactivity = deps.learning?.sessionInactivitySeconds ?? DEFAULT_SESSION_INACTIVITY_SECONDS;
  return evaluations.noteSessionActivity(
    tx,
    scope,
    {
      sessionId: request.session_id,
      userId: request.user_id,
      source: request.source,
      agentVersion: request.agent_version,
      evaluationOnly: request.evaluation_only,
      successSampled: sampled.success,
      learningSampled: sampled.learnings,
      hasShadow,
      dueAt: request.created_at + inactivity,
    },
    request.created_at,
  );
}
