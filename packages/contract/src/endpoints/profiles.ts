import { BulkDeleteResponse, NoInput } from "../common.ts";
import { AddUserProfileRequest, AddUserProfileResponse, DeleteProfileRequest, DeleteProfileResponse, DeleteProfilesByIdsRequest, GetAllProfilesQuery, GetProfilesRequest, ProfileChangeLogQuery, ProfileChangeLogResponse, ProfilesResponse, RerankUserProfilesRequest, SearchProfilesRequest, StorageStatsQuery, StorageStatsResponse } from "../profiles.ts";
import { defineResource } from "../endpoint.ts";

export const profilesEndpoints = defineResource("profiles", {
  add: {
    method: "POST",
    path: "/api/add_user_profile",
    summary: "Add profiles (a UUIDv4 profile_id is generated when omitted; an existing profile_id is replaced)",
    input: AddUserProfileRequest,
    output: AddUserProfileResponse,
    errors: ["embedding_unavailable"],
  },
  search: {
    method: "POST",
    path: "/api/search_profiles",
    summary: "Search a user's profiles: vector, fts or hybrid (reciprocal rank fusion, the default)",
    input: SearchProfilesRequest,
    output: ProfilesResponse,
    errors: ["embedding_unavailable", "not_implemented", "llm_unavailable"],
  },
  deleteByIds: {
    method: "DELETE",
    path: "/api/delete_profiles_by_ids",
    summary: "Delete profiles by id",
    input: DeleteProfilesByIdsRequest,
    output: BulkDeleteResponse,
  },
  deleteAll: {
    method: "DELETE",
    path: "/api/delete_all_profiles",
    summary: "Delete every profile of the project",
    input: NoInput,
    output: BulkDeleteResponse,
  },
  changeLog: {
    method: "GET",
    path: "/api/profile_change_log",
    summary: "History of profile changes, newest first",
    input: ProfileChangeLogQuery,
    output: ProfileChangeLogResponse,
  },
  delete: {
    method: "DELETE",
    path: "/api/delete_profile",
    summary: "Delete one profile of a user, by profile_id or as the best match of search_query",
    input: DeleteProfileRequest,
    output: DeleteProfileResponse,
    errors: ["embedding_unavailable"],
  },
  rerank: {
    method: "POST",
    path: "/api/rerank_user_profiles",
    summary: "Order some of a user's profiles by a cross-encoder's relevance to a query (503 while no reranking model is installed)",
    input: RerankUserProfilesRequest,
    output: ProfilesResponse,
    errors: ["reranker_unavailable"],
  },
  get: {
    method: "POST",
    path: "/api/get_profiles",
    summary: "A user's profiles, newest first (CURRENT unless status_filter says otherwise)",
    input: GetProfilesRequest,
    output: ProfilesResponse,
  },
  storageStats: {
    method: "GET",
    path: "/api/storage_stats",
    summary: "Counts of a user's profiles and playbooks and the range of their modification times",
    input: StorageStatsQuery,
    output: StorageStatsResponse,
  },
  getAll: {
    method: "GET",
    path: "/api/get_all_profiles",
    summary: "Profiles of all users; filters apply before the limit",
    input: GetAllProfilesQuery,
    output: ProfilesResponse,
  },
});
