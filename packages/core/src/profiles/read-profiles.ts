import type { GetAllProfilesQuery, GetProfilesRequest, Status } from "@als/contract";
import { type ProfileRecord, profiles, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/** Without a status filter, agents read what is in force: CURRENT profiles. */
export const DEFAULT_READ_STATUSES: Status[] = ["CURRENT"];

export function getProfiles(deps: CoreDeps, scope: Scope, request: GetProfilesRequest): Promise<ProfileRecord[]> {
  return profiles.listProfiles(
    deps.db,
    scope,
    {
      userId: request.user_id,
      ...(request.profile_id !== undefined && { profileId: request.profile_id }),
      ...(request.query && { contentContains: request.query }),
      ...(request.source && { source: request.source }),
      ...(request.profile_time_to_live && { timeToLive: request.profile_time_to_live }),
      ...(request.tags && { tags: request.tags }),
      ...(request.start_time !== undefined && { start: request.start_time }),
      ...(request.end_time !== undefined && { end: request.end_time }),
      statuses: request.status_filter ?? DEFAULT_READ_STATUSES,
      liveAt: deps.now(),
    },
    request.top_k,
  );
}

/** Every user's profiles; an unset status filter returns any status. Filters apply before the limit. */
export function getAllProfiles(deps: CoreDeps, scope: Scope, query: GetAllProfilesQuery): Promise<ProfileRecord[]> {
  return profiles.listProfiles(
    deps.db,
    scope,
    {
      ...(query.user_id && { userId: query.user_id }),
      ...(query.profile_id && { profileId: query.profile_id }),
      ...(query.query && { contentContains: query.query }),
      ...(query.source && { source: query.source }),
      ...(query.profile_time_to_live && { timeToLive: query.profile_time_to_live }),
      ...(query.status_filter && { statuses: query.status_filter }),
      ...(query.start_time !== undefined && { start: query.start_time }),
      ...(query.end_time !== undefined && { end: query.end_time }),
      dateField: query.date_field,
      liveAt: deps.now(),
    },
    query.limit,
  );
}
