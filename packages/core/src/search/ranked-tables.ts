import {
  type AgentPlaybookRecord,
  agentPlaybooks,
  type InteractionRecord,
  interactions,
  type PlaybookFilters,
  type ProfileFilters,
  type ProfileRecord,
  profiles,
  type Scope,
  type UserPlaybookRecord,
  userPlaybooks,
} from "@als/db";
import type { Condition, VectorFilter } from "@als/vector";
import type { RankedTable } from "./ranked-rows.ts";

type UserPlaybookFilters = Parameters<typeof userPlaybooks.listUserPlaybooks>[2];
type AgentPlaybookFilters = Parameters<typeof agentPlaybooks.listAgentPlaybooks>[2];
type InteractionFilters = Parameters<typeof interactions.listInteractions>[2];

// The conditions below mirror the filter SQL of each query module in packages/db: an unset (or, where
// that SQL skips it, empty) filter adds no condition.
const equal = (key: string, value: string | undefined): Condition[] => (value === undefined || value === "" ? [] : [{ key, equals: value }]);
const anyOf = (key: string, values: string[] | undefined): Condition[] => (values?.length ? [{ key, anyOf: values }] : []);
const overlapping = (key: string, values: string[] | undefined): Condition[] => (values?.length ? [{ key, overlaps: values }] : []);
const between = (key: string, start: number | undefined, end: number | undefined): Condition[] =>
  start === undefined && end === undefined ? [] : [{ key, range: { ...(start !== undefined && { gte: start }), ...(end !== undefined && { lte: end }) } }];

/** Filters the vector index cannot express (substrings, id lists) are refused rather than dropped. */
function refuseOthers(others: object): void {
  const names = Object.entries(others).flatMap(([name, value]) => (value === undefined ? [] : [name]));
  if (names.length > 0) throw new Error(`the vector index cannot filter by ${names.join(", ")}`);
}

function playbookConditions(filters: PlaybookFilters): Condition[] {
  const { agentVersion, playbookName, statuses, tags, start, end, ...others } = filters;
  refuseOthers(others);
  return [
    ...equal("agent_version", agentVersion),
    ...equal("playbook_name", playbookName),
    ...anyOf("status", statuses),
    ...overlapping("tags", tags),
    ...between("created_at", start, end),
  ];
}

export const profileTable: RankedTable<ProfileRecord, ProfileFilters> = {
  collection: "profiles",
  searchInDatabase: profiles.searchProfiles,
  vectorFilter(scope: Scope, filters: ProfileFilters): VectorFilter {
    const { userId, statuses, source, timeToLive, customFeature, extractorName, generatedFromRequestId, tags, dateField, start, end, liveAt, ...others } =
      filters;
    refuseOthers(others);
    return {
      scope,
      must: [
        ...equal("user_id", userId),
        ...anyOf("status", statuses),
        ...equal("source", source),
        ...equal("profile_time_to_live", timeToLive),
        ...equal("custom_feature", customFeature),
        ...equal("extractor_name", extractorName),
        ...equal("generated_from_request_id", generatedFromRequestId),
        ...overlapping("tags", tags),
        ...between(dateField ?? "last_modified_timestamp", start, end),
        ...(liveAt === undefined ? [] : [{ key: "expires_at", range: { gt: liveAt }, orNull: true }]),
      ],
    };
  },
};

export const userPlaybookTable: RankedTable<UserPlaybookRecord, UserPlaybookFilters> = {
  collection: "user_playbooks",
  searchInDatabase: userPlaybooks.searchUserPlaybooks,
  vectorFilter(scope, filters) {
    const { userId, requestId, source, ...shared } = filters;
    return { scope, must: [...playbookConditions(shared), ...equal("user_id", userId), ...equal("request_id", requestId), ...equal("source", source)] };
  },
};

export const agentPlaybookTable: RankedTable<AgentPlaybookRecord, AgentPlaybookFilters> = {
  collection: "agent_playbooks",
  searchInDatabase: agentPlaybooks.searchAgentPlaybooks,
  vectorFilter(scope, filters) {
    const { playbookStatuses, sourceOfLinkedUserPlaybook, ...shared } = filters;
    return {
      scope,
      must: [
        ...playbookConditions(shared),
        ...anyOf("playbook_status", playbookStatuses),
        ...overlapping("linked_sources", sourceOfLinkedUserPlaybook ? [sourceOfLinkedUserPlaybook] : undefined),
      ],
    };
  },
};

export const interactionTable: RankedTable<InteractionRecord, InteractionFilters> = {
  collection: "interactions",
  searchInDatabase: interactions.searchInteractions,
  vectorFilter(scope, filters) {
    const { userId, requestIds, fromSeq, sessionId, createdFrom, createdTo, source, ...others } = filters;
    refuseOthers(others);
    // The index's points carry no session, time or request source: such a search runs in PostgreSQL.
    if (sessionId !== undefined || createdFrom !== undefined || createdTo !== undefined || source) return null;
    return {
      scope,
      must: [
        ...(userId === undefined ? [] : [{ key: "user_id", equals: userId }]),
        ...(requestIds === undefined ? [] : [{ key: "request_id", anyOf: requestIds }]),
        ...(fromSeq === undefined ? [] : [{ key: "seq", range: { gte: fromSeq } }]),
      ],
    };
  },
};
