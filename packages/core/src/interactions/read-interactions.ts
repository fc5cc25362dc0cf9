import type { GetInteractionsRequest, GetRequestsRequest, SearchInteractionsRequest } from "@als/contract";
import { type InteractionRecord, interactions, type RequestRecord, requests, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { groupBy } from "../group-by.ts";
import { planQuery } from "../search/query-plan.ts";
import { rankedRows } from "../search/ranked-rows.ts";
import { interactionTable } from "../search/ranked-tables.ts";
import { type SearchContext, unboundedSearch } from "../search/search-context.ts";

/** The filters of an interaction read, as the query module names them. */
function interactionFilters(
  request: Pick<GetInteractionsRequest, "user_id" | "start_time" | "end_time" | "session_id" | "request_id" | "source">,
): interactions.InteractionFilters {
  return {
    userId: request.user_id,
    ...(request.start_time !== undefined && { createdFrom: request.start_time }),
    ...(request.end_time !== undefined && { createdTo: request.end_time }),
    ...(request.session_id !== undefined && { sessionId: request.session_id }),
    ...(request.request_id !== undefined && { requestIds: [request.request_id] }),
    ...(request.source && { source: request.source }),
  };
}

/** A user's most recent interactions passing the filters, newest first. */
export function getInteractions(deps: CoreDeps, scope: Scope, request: GetInteractionsRequest): Promise<InteractionRecord[]> {
  return interactions.listInteractions(deps.db, scope, interactionFilters(request), request.top_k);
}

/** The project's most recent interactions of every user, newest first. */
export function getAllInteractions(deps: CoreDeps, scope: Scope, limit: number): Promise<InteractionRecord[]> {
  return interactions.listInteractions(deps.db, scope, {}, limit);
}

/**
 * Searches a user's interactions (or only the most recent `most_recent_k`) by meaning, words or
 * both; its stages go to the search's timings (`recent` for the most_recent_k bound).
 */
export async function searchInteractions(
  deps: CoreDeps,
  scope: Scope,
  request: SearchInteractionsRequest,
  search: SearchContext = unboundedSearch(deps),
): Promise<InteractionRecord[]> {
  const plan = await planQuery(deps, search, request);
  const mostRecent = request.most_recent_k;
  const fromSeq =
    mostRecent === undefined
      ? undefined
      : await search.timings.time("recent", () => interactions.seqOfMostRecent(search.db, scope, request.user_id, mostRecent));
  return rankedRows(
    deps,
    search,
    scope,
    interactionTable,
    { ...interactionFilters(request), ...(fromSeq !== undefined && { fromSeq }) },
    { ...plan, topK: request.top_k },
  );
}

export interface SessionRequests {
  session_id: string;
  requests: { request: RequestRecord; interactions: InteractionRecord[] }[];
}

export interface RequestsPage {
  sessions: SessionRequests[];
  /** More requests pass the filters after this page. */
  hasMore: boolean;
}

/**
 * A page of a user's requests passing the filters, newest first, with their interactions, grouped
 * by session (the session of the newest request first).
 */
export async function getRequestsBySession(deps: CoreDeps, scope: Scope, request: GetRequestsRequest): Promise<RequestsPage> {
  const filters: requests.RequestFilters = {
    userId: request.user_id,
    ...(request.session_id !== undefined && { sessionId: request.session_id }),
    ...(request.request_id !== undefined && { requestId: request.request_id }),
    ...(request.source && { source: request.source }),
    ...(request.start_time !== undefined && { createdFrom: request.start_time }),
    ...(request.end_time !== undefined && { createdTo: request.end_time }),
  };
  // One more than the page: whether another page follows, without counting them all.
  const found = await requests.listRequestsOfUser(deps.db, scope, filters, { limit: request.top_k + 1, offset: request.offset });
  const page = found.slice(0, request.top_k);
  const byRequest = groupBy(
    await interactions.listInteractionsOfRequests(
      deps.db,
      scope,
      page.map((r) => r.request_id),
    ),
    (i) => i.request_id,
  );
  const bySession = groupBy(page, (r) => r.session_id);
  return {
    sessions: [...bySession].map(([sessionId, sessionRequests]) => ({
      session_id: sessionId,
      requests: sessionRequests.map((request) => ({ request, interactions: byRequest.get(request.request_id) ?? [] })),
    })),
    hasMore: found.length > request.top_k,
  };
}
