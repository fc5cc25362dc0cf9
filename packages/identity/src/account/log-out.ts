import { loginSessions } from "@als/db";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";

/** Ends the session the request came with: its token is refused from the next request on. */
export async function logOut(deps: IdentityDeps, actor: SessionPrincipal): Promise<{ success: true }> {
  await loginSessions.revokeSession(deps.db, actor.sessionId, deps.now());
  return { success: true };
}
