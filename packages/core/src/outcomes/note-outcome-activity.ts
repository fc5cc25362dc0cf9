import type { InteractionItem } from "@als/contract";
import { outcomeInferences, type RequestRecord, type Scope, type Sql } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/** About ten minutes of quiet (the contract's inferred outcome timing). */
export const DEFAULT_OUTCOME_QUIET_SECONDS = 600;

/** A playbook (not a profile) served to the response or cited by it. */
const usesPlaybook = (item: InteractionItem) =>
  item.retrieved_learnings.some((learned) => learned.kind !== "profile") || item.citations.some((cited) => cited.kind !== "profile");

/**
 * Notes, in the publish's transaction, a session whose outcome the service infers: one where a
 * playbook was served or cited. It is inferred once quiet for about ten minutes, or at once when
 * the user replies after a playbook was used; a session going on is inferred again. Returns true
 * when its orchestrator must be told (a new timer, or one to wake early).
 */
export async function noteOutcomeActivity(deps: CoreDeps, tx: Sql, scope: Scope, request: RequestRecord, items: readonly InteractionItem[]): Promise<boolean> {
  const firstUse = items.findIndex(usesPlaybook);
  const quiet = deps.learning?.outcomeQuietSeconds ?? DEFAULT_OUTCOME_QUIET_SECONDS;
  return outcomeInferences.noteOutcomeActivity(
    tx,
    scope,
    {
      sessionId: request.session_id,
      userId: request.user_id,
      usesPlaybook: firstUse >= 0,
      repliedInPublish: firstUse >= 0 && items.slice(firstUse + 1).some((item) => item.role === "User"),
      hasUserTurn: items.some((item) => item.role === "User"),
      quietAt: request.created_at + quiet,
    },
    request.created_at,
  );
}
