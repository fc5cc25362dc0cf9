import { ErasureInProgressError, type Scope, searchEvidence } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import { type Principal, principalIdOf } from "./principal.ts";
import { newId } from "./secret-tokens.ts";

/**
 * Records what an authenticated search served (contract: Authentication 10) before the search
 * answers: a failure here fails the search (503), so no result reaches a credential unrecorded.
 * Local (unauthenticated) searches and empty results record nothing.
 */
export async function recordSearchEvidence(
  deps: IdentityDeps,
  principal: Principal,
  scope: Scope,
  search: { route: string; userId: string | null; servedIds: string[] },
): Promise<void> {
  if (search.servedIds.length === 0 || (principal.kind !== "api_key" && principal.kind !== "session")) return;
  try {
    await searchEvidence.insertSearchEvidence(deps.db, scope, {
      evidence_id: newId("evd"),
      route: search.route,
      credential_kind: principal.kind === "api_key" ? "api_key" : principal.sessionKind === "governance" ? "governance_session" : "login_session",
      principal_id: principalIdOf(principal),
      user_id: search.userId,
      served_ids: search.servedIds,
      created_at: deps.now(),
    });
  } catch (error) {
    // The user is being erased: no evidence of them may be written, and the search still answers.
    if (!(error instanceof ErasureInProgressError)) throw error;
  }
}
