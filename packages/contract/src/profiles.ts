import { z } from "zod";
import {
  END_AFTER_START_RULE,
  END_BEFORE_START,
  endAfterStart,
  SearchMode,
  SearchText,
  Source,
  Status,
  StatusFilter,
  StatusOnWire,
  Tags,
  Threshold,
  TimeRange,
  UserId,
} from "./common.ts";
import { type IgnoredFieldRules, ignoredFieldWarnings, knownFieldsOf, readOnlyFields } from "./ignored-fields.ts";

export const PROFILE_TIME_TO_LIVE = ["one_day", "one_week", "one_month", "one_quarter", "one_year", "infinity"] as const;
export const ProfileTimeToLive = z.enum(PROFILE_TIME_TO_LIVE);
export type ProfileTimeToLive = z.infer<typeof ProfileTimeToLive>;

/** Expiry of a profile that never expires (2100-01-01T00:00:00Z), as the reference clients expect. */
export const NEVER_EXPIRES_TIMESTAMP = 4102444800;

export const Profile = z.object({
  profile_id: z.string(),
  user_id: z.string(),
  content: z.string(),
  status: StatusOnWire,
  source: z.string(),
  profile_time_to_live: ProfileTimeToLive,
  expiration_timestamp: z.number().int(),
  tags: z.array(z.string()),
  custom_feature: z.string().nullable(),
  extractor_name: z.string().nullable(),
  generated_from_request_id: z.string().describe("Empty for a profile added without one (clients of the peer service require a string here)"),
  created_at: z.number().int(),
  last_modified_timestamp: z.number().int(),
});
export type Profile = z.infer<typeof Profile>;

const NewProfileFields = z.object({
  user_id: UserId,
  content: z.string().trim().min(1, "content must not be empty"),
  profile_id: z.string().min(1).max(255).optional(),
  status: Status.optional(),
  source: Source.optional(),
  profile_time_to_live: ProfileTimeToLive.optional(),
  tags: Tags.optional(),
  custom_feature: z.string().nullish(),
  extractor_name: z.string().nullish(),
  generated_from_request_id: z.string().max(255).nullish(),
});
export type NewProfile = z.infer<typeof NewProfileFields>;
/** Other fields (the peer service's whole profile model, read-only ones included) are ignored and named in the warnings. */
export const NewProfile = NewProfileFields.loose();
const PROFILE_FIELDS: IgnoredFieldRules = { known: new Set(Object.keys(NewProfileFields.shape)), readOnly: readOnlyFields(Profile, NewProfileFields) };

export const AddUserProfileRequest = z
  .object({
    user_profiles: z
      .array(NewProfile)
      .min(1, "user_profiles must hold at least one profile")
      // One write replaces a profile once: two entries for one profile_id would leave it undecided which stays.
      .superRefine((profiles, ctx) => {
        const firstIndex = new Map<string, number>();
        profiles.forEach((profile, index) => {
          if (profile.profile_id === undefined) return;
          const first = firstIndex.get(profile.profile_id);
          if (first === undefined) firstIndex.set(profile.profile_id, index);
          else ctx.addIssue({ code: "custom", path: [index, "profile_id"], message: `repeats the profile_id of user_profiles[${first}]` });
        });
      }),
  })
  .transform(({ user_profiles }) => ({
    user_profiles: user_profiles.map((profile): NewProfile => knownFieldsOf(profile, PROFILE_FIELDS.known)),
    warnings: user_profiles.flatMap((profile, index) => ignoredFieldWarnings(`user_profiles[${index}]`, profile, PROFILE_FIELDS)),
  }));
export const AddUserProfileResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  added_count: z.number().int(),
  profile_ids: z.array(z.string()),
  warnings: z
    .array(z.string())
    .describe("Fields of the entries that were ignored: read-only ones (ids, timestamps) and unknown ones, each that carried a value"),
});

export const GetProfilesRequest = z
  .object({
    user_id: UserId,
    profile_id: z.string().optional(),
    query: SearchText.optional(),
    ...TimeRange,
    top_k: z.number().int().min(1).max(1000).default(30),
    source: Source.optional(),
    profile_time_to_live: ProfileTimeToLive.optional(),
    status_filter: StatusFilter.optional(),
    tags: Tags.optional(),
    force_refresh: z.boolean().default(false),
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetProfilesRequest = z.infer<typeof GetProfilesRequest>;

export const ProfilesResponse = z.object({
  success: z.boolean(),
  user_profiles: z.array(Profile),
  msg: z.string().nullable(),
});

/** Query parameters arrive as strings; numbers are coerced and status_filter may be comma-separated. */
const csv = <S extends z.ZodType>(schema: S) =>
  z.preprocess(
    (value) =>
      typeof value === "string"
        ? value
            .split(",")
            .map((part) => part.trim())
            .filter(Boolean)
        : value,
    schema,
  );
const queryInt = z.coerce.number().int();

export const DATE_FIELDS = ["last_modified_timestamp", "created_at"] as const;

export const GetAllProfilesQuery = z
  .object({
    limit: queryInt.min(1).max(10000).default(100),
    status_filter: csv(StatusFilter).optional(),
    user_id: z.string().optional(),
    profile_id: z.string().optional(),
    query: SearchText.optional(),
    source: Source.optional(),
    profile_time_to_live: ProfileTimeToLive.optional(),
    ...TimeRange,
    date_field: z.enum(DATE_FIELDS).default("last_modified_timestamp"),
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type GetAllProfilesQuery = z.infer<typeof GetAllProfilesQuery>;

export const SearchProfilesRequest = z
  .object({
    user_id: UserId,
    generated_from_request_id: z.string().optional(),
    query: SearchText.optional(),
    ...TimeRange,
    top_k: z.number().int().min(1).max(100).default(10),
    source: Source.optional(),
    custom_feature: z.string().optional(),
    extractor_name: z.string().optional(),
    tags: Tags.optional(),
    status_filter: StatusFilter.optional(),
    threshold: Threshold.optional(),
    enable_reformulation: z.boolean().default(false),
    search_mode: SearchMode.optional(),
  })
  .refine(endAfterStart, END_BEFORE_START)
  .meta(END_AFTER_START_RULE);
export type SearchProfilesRequest = z.infer<typeof SearchProfilesRequest>;

/** CPU work grows with every pair a cross-encoder reads; a larger list is refused, not left to time out. */
export const MAX_RERANK_PROFILE_IDS = 1000;

/** Answered with ProfilesResponse (the contract's SearchProfilesViewResponse). */
export const RerankUserProfilesRequest = z.object({
  user_id: UserId,
  query: SearchText.trim().min(1, "query must not be empty"),
  /** Ids of other users' profiles, or of none, are dropped silently; an empty list reranks nothing. */
  profile_ids: z.array(z.string()).max(MAX_RERANK_PROFILE_IDS, `profile_ids must hold at most ${MAX_RERANK_PROFILE_IDS} ids`),
  top_k: z.number().int().min(1).max(100).default(10),
});
export type RerankUserProfilesRequest = z.infer<typeof RerankUserProfilesRequest>;

export const DeleteProfileRequest = z
  .object({
    user_id: UserId,
    profile_id: z.string().default(""),
    search_query: SearchText.default(""),
  })
  .refine((value) => value.profile_id !== "" || value.search_query.trim() !== "", {
    message: "give profile_id or search_query",
    path: ["profile_id"],
  });
export type DeleteProfileRequest = z.infer<typeof DeleteProfileRequest>;

export const DeleteProfileResponse = z.object({
  success: z.boolean(),
  message: z.string(),
  deleted_count: z.number().int(),
  profile_ids: z.array(z.string()),
});

export const DeleteProfilesByIdsRequest = z.object({
  profile_ids: z.array(z.string().min(1)).min(1, "profile_ids must hold at least one id"),
});

export const ProfileChangeLogEntry = z.object({
  id: z.number().int(),
  user_id: z.string(),
  request_id: z.string().describe("The request learning read; empty for profiles added or removed by hand (clients of the peer service require a string here)"),
  created_at: z.number().int(),
  added_profiles: z.array(Profile),
  removed_profiles: z.array(Profile),
  mentioned_profiles: z
    .array(Profile)
    .describe("Always empty: this service records what a change added and removed only (for clients of the peer service, which require the field)"),
});
export const ProfileChangeLogQuery = z.object({
  user_id: z.string().optional(),
  limit: queryInt.min(1).max(1000).default(100),
});
export const ProfileChangeLogResponse = z.object({
  success: z.boolean(),
  profile_change_logs: z.array(ProfileChangeLogEntry),
});

export const StorageStatsQuery = z.object({ user_id: UserId });
export const StorageStatsResponse = z.object({
  success: z.boolean(),
  profile_count: z.number().int(),
  playbook_count: z.number().int(),
  /** ISO 8601 (UTC) of the oldest and newest last modification, across all statuses. */
  oldest_profile_modified: z.string().nullable(),
  newest_profile_modified: z.string().nullable(),
  msg: z.string(),
});
