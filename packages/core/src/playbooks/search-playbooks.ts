import type { SearchAgentPlaybooksRequest, SearchMode, SearchUserPlaybooksRequest, Status } from "@als/contract";
import { type AgentPlaybookRecord, agentPlaybooks, type Scope, type UserPlaybookRecord, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { type PlannedSearch, planQuery } from "../search/query-plan.ts";
import { rankedRows } from "../search/ranked-rows.ts";
import { agentPlaybookTable, userPlaybookTable } from "../search/ranked-tables.ts";
import { type SearchContext, unboundedSearch } from "../search/search-context.ts";
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
  search: SearchContext,
  request: SearchOptions,
  stage: string,
  rank: (planned: PlannedSearch) => Promise<R[]>,
  newest: (limit: number) => Promise<R[]>,
): Promise<R[]> {
  const query = request.query?.trim() ?? "";
  if (query === "") return search.timings.time(stage, () => newest(request.top_k), "list");
  const plan = await planQuery(deps, search, { ...request, query });
  return rank({ ...plan, topK: request.top_k });
}

/** Searches user playbooks of the project, or of one user when user_id is given; its stages go to the search's timings. */
export function searchUserPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  request: SearchUserPlaybooksRequest,
  search: SearchContext = unboundedSearch(deps),
): Promise<UserPlaybookRecord[]> {
  const filters = {
    ...playbookFilters(request),
    statuses: request.status_filter ?? DEFAULT_SEARCH_STATUSES,
    ...(request.user_id && { userId: request.user_id }),
    ...(request.source && { source: request.source }),
  };
  return rankOrList(
    deps,
    search,
    request,
    userPlaybookTable.collection,
    (planned) => rankedRows(deps, search, scope, userPlaybookTable, filters, planned),
    (limit) => userPlaybooks.listUserPlaybooks(search.db, scope, filters, limit),
  );
}

/**
 * Searches the project's agent playbooks. user_id only identifies the caller (for retrieval
 * experiments); source matches through the linked source user playbooks. Its stages go to the
 * search's timings.
 */
export function searchAgentPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  request: SearchAgentPlaybooksRequest,
  search: SearchContext = unboundedSearch(deps),
): Promise<AgentPlaybookRecord[]> {
  const filters = {
    ...playbookFilters(request),
    statuses: request.status_filter ?? DEFAULT_SEARCH_STATUSES,
    ...(request.playbook_status_filter && { playbookStatuses: request.playbook_status_filter }),
    ...(request.source && { sourceOfLinkedUserPlaybook: request.source }),
  };
  return rankOrList(
    deps,
    search,
    request,
    agentPlaybookTable.collection,
    (planned) => rankedRows(deps, search, scope, agentPlaybookTable, filters, planned),
    (limit) => agentPlaybooks.listAgentPlaybooks(search.db, scope, filters, limit),
  );
}
