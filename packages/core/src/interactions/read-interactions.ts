import type { SearchInteractionsRequest } from "@als/contract";
import { interactions, requests, type InteractionRecord, type RequestRecord, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { groupBy } from "../group-by.ts";
import { planQuery } from "../search/query-plan.ts";
import { rankedRows } from "../search/ranked-rows.ts";
import { interactionTable } from "../search/ranked-tables.ts";

/** A user's most recent interactions, newest first. */
export function getInteractions(deps: CoreDeps, scope: Scope, userId: string, topK: number): Promise<InteractionRecord[]> {
  return interactions.listInteractions(deps.db, scope, { userId }, topK);
}

/** The project's most recent interactions of every user, newest first. */
export function getAllInteractions(deps: CoreDeps, scope: Scope, limit: number): Promise<InteractionRecord[]> {
  return interactions.listInteractions(deps.db, scope, {}, limit);
}

/** Searches a user's interactions (or only the most recent `most_recent_k`) by meaning, words or both. */
export async function searchInteractions(deps: CoreDeps, scope: Scope, request: SearchInteractionsRequest): Promise<InteractionRecord[]> {
  const plan = await planQuery(deps, request);
  const fromSeq = request.most_recent_k === undefined ? undefined : await interactions.seqOfMostRecent(deps.db, scope, request.user_id, request.most_recent_k);
  return rankedRows(
    deps,
    scope,
    interactionTable,
    { userId: request.user_id, ...(fromSeq !== undefined && { fromSeq }) },
    { ...plan, topK: request.top_k },
  );
}

export interface SessionRequests {
  session_id: string;
  requests: { request: RequestRecord; interactions: InteractionRecord[] }[];
}

/** A user's most recent requests with their interactions, grouped by session (newest session first). */
export async function getRequestsBySession(deps: CoreDeps, scope: Scope, userId: string, topK: number): Promise<SessionRequests[]> {
  const recent = await requests.listRequestsOfUser(deps.db, scope, userId, topK);
  const byRequest = groupBy(await interactions.listInteractionsOfRequests(deps.db, scope, recent.map((r) => r.request_id)), (i) => i.request_id);
  const bySession = groupBy(recent, (r) => r.session_id);
  return [...bySession].map(([sessionId, sessionRequests]) => ({
    session_id: sessionId,
    requests: sessionRequests.map((request) => ({ request, interactions: byRequest.get(request.request_id) ?? [] })),
  }));
}
