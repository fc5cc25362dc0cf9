import type { SearchProfilesRequest } from "@als/contract";
import { type ProfileFilters, type ProfileRecord, profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { planQuery } from "../search/query-plan.ts";
import { rankedRows } from "../search/ranked-rows.ts";
import { profileTable } from "../search/ranked-tables.ts";
import { type SearchContext, unboundedSearch } from "../search/search-context.ts";
import { DEFAULT_READ_STATUSES } from "./read-profiles.ts";

/**
 * Searches one user's profiles by meaning (vector), words (fts) or both, their scores fused
 * (hybrid, the default). Without a query it returns the most recently modified profiles. Its
 * stages go to the search's timings (see planQuery and rankedRows).
 */
export async function searchProfiles(
  deps: CoreDeps,
  scope: Scope,
  request: SearchProfilesRequest,
  search: SearchContext = unboundedSearch(deps),
): Promise<ProfileRecord[]> {
  const filters: ProfileFilters = {
    userId: request.user_id,
    ...(request.generated_from_request_id && { generatedFromRequestId: request.generated_from_request_id }),
    ...(request.source && { source: request.source }),
    ...(request.custom_feature && { customFeature: request.custom_feature }),
    ...(request.extractor_name && { extractorName: request.extractor_name }),
    ...(request.tags?.length && { tags: request.tags }),
    ...(request.start_time !== undefined && { start: request.start_time }),
    ...(request.end_time !== undefined && { end: request.end_time }),
    statuses: request.status_filter ?? DEFAULT_READ_STATUSES,
    liveAt: deps.now(),
  };
  const query = request.query?.trim() ?? "";
  if (query === "") return search.timings.time(profileTable.collection, () => profiles.listProfiles(search.db, scope, filters, request.top_k), "list");
  const plan = await planQuery(deps, search, { ...request, query });
  return rankedRows(deps, search, scope, profileTable, filters, { ...plan, topK: request.top_k });
}
