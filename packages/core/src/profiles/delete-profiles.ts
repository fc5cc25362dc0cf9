import { type ProfileFilters, type ProfileRecord, profileChangeLog, profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { groupBy } from "../group-by.ts";
import { withCommonLexemes } from "../search/common-lexemes.ts";
import { planQuery, withQueryVector } from "../search/query-plan.ts";
import { unboundedSearch } from "../search/search-context.ts";

/** Deletes the profiles passing `filters` and logs the removal per user in the same transaction. */
async function deleteAndLog(deps: CoreDeps, scope: Scope, filters: ProfileFilters): Promise<ProfileRecord[]> {
  return deps.db.transaction(async (tx) => {
    const removed = await profiles.deleteProfiles(tx, scope, filters);
    const byUser = groupBy(removed, (p) => p.user_id);
    await profileChangeLog.recordProfileChanges(
      tx,
      scope,
      [...byUser].map(([userId, gone]) => ({ user_id: userId, request_id: null, added_profiles: [], removed_profiles: gone })),
      deps.now(),
    );
    return removed;
  });
}

/**
 * Deletes one of the user's profiles: the one named by profile_id or, without it, the single profile
 * that best matches search_query (hybrid search), so a vague query never removes more than one fact.
 */
export async function deleteProfile(
  deps: CoreDeps,
  scope: Scope,
  request: { user_id: string; profile_id: string; search_query: string },
): Promise<ProfileRecord[]> {
  if (request.profile_id !== "") return deleteAndLog(deps, scope, { userId: request.user_id, profileId: request.profile_id });
  const plan = await planQuery(deps, unboundedSearch(deps), { query: request.search_query });
  const query = await withCommonLexemes(deps, "profiles", await withQueryVector({ ...plan, topK: 1 }));
  const [best] = await profiles.searchProfiles(deps.db, scope, { userId: request.user_id }, query);
  if (!best) return [];
  return deleteAndLog(deps, scope, { userId: request.user_id, profileId: best.profile_id });
}

export function deleteProfilesByIds(deps: CoreDeps, scope: Scope, profileIds: string[]): Promise<ProfileRecord[]> {
  return deleteAndLog(deps, scope, { profileIds });
}

export function deleteAllProfiles(deps: CoreDeps, scope: Scope): Promise<ProfileRecord[]> {
  return deleteAndLog(deps, scope, {});
}
