import { requests, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

export interface FinalizedSession {
  /** False when the user has no request in the session that learning reads. */
  accepted: boolean;
  /** The request now carrying the hint. */
  requestId: string | null;
}

/**
 * The contract's optional completion hint: the caller says a user's session is finished, so the
 * window holding its last interactions is due now rather than after the session inactivity
 * deadline. The hint is stored on the user's latest request of the session (durable, like
 * force_extraction), then the orchestrator is told the user has work. Later publishes to the session
 * are still accepted and learned as usual.
 */
export async function finalizeSession(deps: CoreDeps, scope: Scope, userId: string, sessionId: string): Promise<FinalizedSession> {
  const hinted = await requests.hintSessionCompletion(deps.db, scope, userId, sessionId);
  if (!hinted) return { accepted: false, requestId: null };
  await deps.orchestrator?.schedule("learning", scope, userId);
  return { accepted: true, requestId: hinted.request_id };
}
