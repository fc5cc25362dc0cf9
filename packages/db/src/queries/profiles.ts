import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { inStatements } from "./in-statements.ts";
import { type LifecycleUpgrade, upgradeLifecycle } from "./lifecycle-upgrade.ts";
import { containsPattern, oneOfSql, Params, VectorParam } from "./params.ts";
import { fusedRowsSelectSql, type RankedQuery, type RankedScores, rankedQuerySql } from "./ranked-search.ts";

export const PROFILE_STATUSES = ["CURRENT", "PENDING", "ARCHIVED"] as const;
export type ProfileStatus = (typeof PROFILE_STATUSES)[number];

/** A profile as stored, without its embedding. */
export interface ProfileRecord {
  profile_id: string;
  user_id: string;
  content: string;
  status: ProfileStatus;
  source: string;
  profile_time_to_live: string;
  expires_at: number | null;
  tags: string[];
  custom_feature: string | null;
  extractor_name: string | null;
  generated_from_request_id: string | null;
  created_at: number;
  last_modified_timestamp: number;
}

export interface ProfileInsert extends Omit<ProfileRecord, "created_at" | "last_modified_timestamp"> {
  embedding: number[];
  embedding_model: string;
}

/** A ProfileRecord's columns: what reads and searches return (the in-process index keeps them too, migration 0052). */
export const COLUMNS = `profile_id, user_id, content, status, source, profile_time_to_live, expires_at, tags,
  custom_feature, extractor_name, generated_from_request_id, created_at, last_modified_timestamp`;

export interface ProfileFilters {
  userId?: string;
  profileId?: string;
  profileIds?: string[];
  statuses?: ProfileStatus[];
  source?: string;
  timeToLive?: string;
  customFeature?: string;
  extractorName?: string;
  generatedFromRequestId?: string;
  /** Any-match: a profile carrying at least one of these tags. */
  tags?: string[];
  /** Case-insensitive substring of the content. */
  contentContains?: string;
  dateField?: "last_modified_timestamp" | "created_at";
  start?: number;
  end?: number;
  /** Hide profiles whose time to live ran out before this Unix second. */
  liveAt?: number;
}

function filterSql(scope: Scope, filters: ProfileFilters, params: Params): string {
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`];
  const equal = (column: string, value: string | undefined) => {
    if (value !== undefined && value !== "") where.push(`${column} = ${params.add(value)}`);
  };
  equal("user_id", filters.userId);
  equal("profile_id", filters.profileId);
  equal("source", filters.source);
  equal("profile_time_to_live", filters.timeToLive);
  equal("custom_feature", filters.customFeature);
  equal("extractor_name", filters.extractorName);
  equal("generated_from_request_id", filters.generatedFromRequestId);
  if (filters.profileIds) where.push(`profile_id = ANY(${params.add(filters.profileIds)}::text[])`);
  if (filters.statuses?.length) where.push(oneOfSql("status", filters.statuses, PROFILE_STATUSES));
  if (filters.tags?.length) where.push(`tags && ${params.add(filters.tags)}::text[]`);
  if (filters.contentContains) where.push(`content ILIKE ${params.add(containsPattern(filters.contentContains))}`);
  const dateField = filters.dateField ?? "last_modified_timestamp";
  if (filters.start !== undefined) where.push(`${dateField} >= ${params.add(filters.start)}`);
  if (filters.end !== undefined) where.push(`${dateField} <= ${params.add(filters.end)}`);
  if (filters.liveAt !== undefined) where.push(`(expires_at IS NULL OR expires_at > ${params.add(filters.liveAt)})`);
  return where.join(" AND ");
}

/** Inserts profiles, replacing the content of an existing profile_id; returns the stored rows. */
export function upsertProfiles(sql: Sql, scope: Scope, profiles: ProfileInsert[], now: number): Promise<ProfileRecord[]> {
  return inStatements(profiles, 14, (chunk) => upsertProfileStatement(sql, scope, chunk, now));
}

async function upsertProfileStatement(sql: Sql, scope: Scope, profiles: ProfileInsert[], now: number): Promise<ProfileRecord[]> {
  const params = new Params();
  const [org, project, at] = [params.add(scope.orgId), params.add(scope.projectId), params.add(now)];
  const rows = profiles.map(
    (p) =>
      `(${org}, ${project}, ${params.add(p.profile_id)}, ${params.add(p.user_id)}, ${params.add(p.content)}, ${params.add(p.status)},
        ${params.add(p.source)}, ${params.add(p.profile_time_to_live)}, ${params.add(p.expires_at)}::int8, ${params.add(p.tags)}::text[],
        ${params.add(p.custom_feature)}, ${params.add(p.extractor_name)}, ${params.add(p.generated_from_request_id)},
        ${at}::int8, ${at}::int8, ${params.add(new VectorParam(p.embedding))}::vector, ${params.add(p.embedding_model)})`,
  );
  return sql.query<ProfileRecord>(
    `INSERT INTO profiles (org_id, project_id, profile_id, user_id, content, status, source, profile_time_to_live, expires_at,
       tags, custom_feature, extractor_name, generated_from_request_id, created_at, last_modified_timestamp, embedding, embedding_model)
     VALUES ${rows.join(",\n")}
     ON CONFLICT (org_id, project_id, profile_id) DO UPDATE SET
       user_id = EXCLUDED.user_id, content = EXCLUDED.content, status = EXCLUDED.status, source = EXCLUDED.source,
       profile_time_to_live = EXCLUDED.profile_time_to_live, expires_at = EXCLUDED.expires_at, tags = EXCLUDED.tags,
       custom_feature = EXCLUDED.custom_feature, extractor_name = EXCLUDED.extractor_name,
       generated_from_request_id = EXCLUDED.generated_from_request_id,
       last_modified_timestamp = EXCLUDED.last_modified_timestamp,
       embedding = EXCLUDED.embedding, embedding_model = EXCLUDED.embedding_model
     RETURNING ${COLUMNS}`,
    params.values,
  );
}

export async function findProfilesByIds(sql: Sql, scope: Scope, profileIds: string[]): Promise<ProfileRecord[]> {
  if (profileIds.length === 0) return [];
  const params = new Params();
  const where = filterSql(scope, { profileIds }, params);
  return sql.query<ProfileRecord>(`SELECT ${COLUMNS} FROM profiles WHERE ${where}`, params.values);
}

/** Profiles passing the filters, most recently modified (or created) first. */
export async function listProfiles(sql: Sql, scope: Scope, filters: ProfileFilters, limit: number): Promise<ProfileRecord[]> {
  const params = new Params();
  const where = filterSql(scope, filters, params);
  const order = filters.dateField ?? "last_modified_timestamp";
  return sql.query<ProfileRecord>(
    `SELECT ${COLUMNS} FROM profiles WHERE ${where} ORDER BY ${order} DESC, profile_id LIMIT ${params.add(limit)}`,
    params.values,
  );
}

export type ProfileSearch = RankedQuery;

export type ScoredProfile = ProfileRecord & RankedScores;

/** Vector, full-text or hybrid (fused) search over the profiles passing the filters. */
export async function searchProfiles(sql: Sql, scope: Scope, filters: ProfileFilters, search: ProfileSearch): Promise<ScoredProfile[]> {
  const params = new Params();
  const where = filterSql(scope, filters, params);
  const target = { table: "profiles", idColumn: "profile_id", idType: "text", where, params } as const;
  if (search.fusedFound) return sql.query<ScoredProfile>(fusedRowsSelectSql(target, search.fusedFound, search.topK, COLUMNS), params.values);
  const ranked = rankedQuerySql(target, search);
  return sql.query<ScoredProfile>(
    `SELECT ${COLUMNS.replace(/(\w+)/g, "p.$1")}, ranked.score, ranked.similarity, ranked.text_score
     FROM (${ranked}) ranked JOIN profiles p ON p.profile_id = ranked.id
       AND p.org_id = ${params.add(scope.orgId)} AND p.project_id = ${params.add(scope.projectId)}
     ORDER BY ranked.score DESC, p.profile_id`,
    params.values,
  );
}

/** Deletes the matching profiles and returns them (for the change log). */
export async function deleteProfiles(sql: Sql, scope: Scope, filters: ProfileFilters): Promise<ProfileRecord[]> {
  const params = new Params();
  const where = filterSql(scope, filters, params);
  return sql.query<ProfileRecord>(`DELETE FROM profiles WHERE ${where} RETURNING ${COLUMNS}`, params.values);
}

export interface ProfileCounts {
  profile_count: number;
  oldest_modified_timestamp: number | null;
  newest_modified_timestamp: number | null;
}

export async function countProfiles(sql: Sql, scope: Scope, userId?: string): Promise<ProfileCounts> {
  const params = new Params();
  const where = filterSql(scope, userId ? { userId } : {}, params);
  const [row] = await sql.query<ProfileCounts>(
    `SELECT count(*)::int8 AS profile_count, min(last_modified_timestamp) AS oldest_modified_timestamp,
       max(last_modified_timestamp) AS newest_modified_timestamp FROM profiles WHERE ${where}`,
    params.values,
  );
  return row!;
}

/** The users (one, when `userId` is given) with PENDING profiles waiting for an upgrade, in id order. */
export async function findUsersWithPendingProfiles(sql: Sql, scope: Scope, userId?: string): Promise<string[]> {
  const params = new Params();
  const where = filterSql(scope, { userId, statuses: ["PENDING"] }, params);
  const rows = await sql.query<{ user_id: string }>(`SELECT DISTINCT user_id FROM profiles WHERE ${where} ORDER BY user_id`, params.values);
  return rows.map((row) => row.user_id);
}

/** Upgrades a user's profiles one lifecycle step (see upgradeLifecycle). */
export function upgradeProfilesOfUser(sql: Sql, scope: Scope, userId: string, now: number): Promise<LifecycleUpgrade<ProfileRecord>> {
  const params = new Params();
  return upgradeLifecycle(sql, { table: "profiles", columns: COLUMNS, where: filterSql(scope, { userId }, params), params }, now);
}
