import { AppError } from "@als/contract";
import { type DeletedRequests, interactions, learning, profileChangeLog, profiles, requests, type Scope, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Deletes one interaction of a user; 404 when the user has no such interaction (another user's, or
 * another project's, is not theirs). What learning already took from it stays learned.
 */
export async function deleteInteraction(deps: CoreDeps, scope: Scope, userId: string, interactionId: number): Promise<void> {
  const deleted = await interactions.deleteInteractionOfUser(deps.db, scope, userId, interactionId);
  if (deleted === 0) throw AppError.notFound(`interaction ${interactionId} of user '${userId}'`);
}

/** Deletes one request and its interactions. */
export function deleteRequest(deps: CoreDeps, scope: Scope, requestId: string): Promise<DeletedRequests> {
  return requests.deleteRequests(deps.db, scope, { requestIds: [requestId] });
}

export function deleteRequestsByIds(deps: CoreDeps, scope: Scope, requestIds: string[]): Promise<DeletedRequests> {
  return requests.deleteRequests(deps.db, scope, { requestIds });
}

/** Deletes every request of a session and their interactions. Session outcomes are not touched. */
export function deleteSession(deps: CoreDeps, scope: Scope, sessionId: string): Promise<DeletedRequests> {
  return requests.deleteRequests(deps.db, scope, { sessionId });
}

/** Deletes every interaction of the project, with the requests that published them. */
export function deleteAllInteractions(deps: CoreDeps, scope: Scope): Promise<DeletedRequests> {
  return requests.deleteRequests(deps.db, scope, {});
}

export interface ClearedUserData {
  interactions: number;
  requests: number;
  profiles: number;
  user_playbooks: number;
}

/**
 * Removes everything learned from and about one user, in one transaction: interactions, requests,
 * profiles (and their change history), user playbooks, and the user's learning cursors. Agent
 * playbooks belong to the organisation and stay; their links to the user's playbooks go.
 */
export function clearUserData(deps: CoreDeps, scope: Scope, userId: string): Promise<ClearedUserData> {
  return deps.db.transaction(async (tx) => {
    const published = await requests.deleteRequests(tx, scope, { userId });
    const removedProfiles = await profiles.deleteProfiles(tx, scope, { userId });
    await profileChangeLog.deleteChangesOfUser(tx, scope, userId);
    const removedPlaybooks = await userPlaybooks.deleteUserPlaybooks(tx, scope, { userId });
    await learning.forgetUserStream(tx, scope, userId);
    return {
      interactions: published.interactions,
      requests: published.requests,
      profiles: removedProfiles.length,
      user_playbooks: removedPlaybooks.length,
    };
  });
}
