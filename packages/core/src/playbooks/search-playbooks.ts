import type { SearchAgentPlaybooksRequest, SearchMode, SearchUserPlaybooksRequest, Status } from "@als/contract";
import { type AgentPlaybookRecord, agentPlaybooks, type PlaybookSearch, type Scope, type UserPlaybookRecord, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { RequestTimings } from "../request-timings.ts";
import { planQuery } from "../search/query-plan.ts";
import { rankedRows } from "../search/ranked-rows.ts";
import { agentPlaybookTable, userPlaybookTable } from "../search/ranked-tables.ts";
import { playbookFilters } from "./read-playbooks.ts";

/** Without a status filter, searches leave out ARCHIVED (superseded) playbooks. */
export const DEFAULT_SEARCH_STATUSES: Status[] = ["CURRENT", "PENDING"];

interface SearchOptions {
  query?: string | undefined;
  top_k: number;
  threshold?: number | undefined;
  enable_reformulation: boolean;
  search_mode?: SearchMode | undefined;
}

/**
 * Ranks by meaning (vector), words (fts) or both, their scores fused (hybrid, the default);
 * without a query, the newest playbooks passing the filters (timed as `stage`, "list").
 */
async function rankOrList<R>(
  deps: CoreDeps,
  request: SearchOptions,
  timings: RequestTimings,
  stage: string,
  rank: (search: Omit<PlaybookSearch, "commonLexemes">) => Promise<R[]>,
  newest: (limit: number) => Promise<R[]>,
): Promise<R[]> {
  const query = request.query?.trim() ?? "";
  if (query === "") return timings.time(stage, () => newest(request.top_k), "list");
  const plan = await planQuery(deps, { ...request, query }, timings);
  return rank({ ...plan, topK: request.top_k });
}

/** Searches user playbooks of the project, or of one user when user_id is given; its stages go to `timings`. */
export function searchUserPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  request: SearchUserPlaybooksRequest,
  timings = new RequestTimings(),
): Promise<UserPlaybookRecord[]> {
  const filters = {
    ...playbookFilters(request),
    statuses: request.status_filter ?? DEFAULT_SEARCH_STATUSES,
    ...(request.user_id && { userId: request.user_id }),
    ...(request.source && { source: request.source }),
  };
  return rankOrList(
    deps,
    request,
    timings,
    userPlaybookTable.collection,
    (search) => rankedRows(deps, scope, userPlaybookTable, filters, search, timings),
    (limit) => userPlaybooks.listUserPlaybooks(deps.db, scope, filters, limit),
  );
}

/**
 * Searches the project's agent playbooks. user_id only identifies the caller (for retrieval
 * experiments); source matches through the linked source user playbooks. Its stages go to `timings`.
 */
export function searchAgentPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  request: SearchAgentPlaybooksRequest,
  timings = new RequestTimings(),
): Promise<AgentPlaybookRecord[]> {
  const filters = {
    ...playbookFilters(request),
    statuses: request.status_filter ?? DEFAULT_SEARCH_STATUSES,
    ...(request.playbook_status_filter && { playbookStatuses: request.playbook_status_filter }),
    ...(request.source && { sourceOfLinkedUserPlaybook: request.source }),
  };
  return rankOrList(
    deps,
    request,
    timings,
    agentPlaybookTable.collection,
    (search) => rankedRows(deps, scope, agentPlaybookTable, filters, search, timings),
    (limit) => agentPlaybooks.listAgentPlaybooks(deps.db, scope, filters, limit),
  );
}
