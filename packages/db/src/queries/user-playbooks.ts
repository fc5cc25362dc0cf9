import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { inStatements } from "./in-statements.ts";
import { type LifecycleUpgrade, upgradeLifecycle } from "./lifecycle-upgrade.ts";
import { Params, VectorParam } from "./params.ts";
import { type LifecycleStatus, type PlaybookFilters, type PlaybookText, playbookConditions, playbookQueries } from "./playbook-query.ts";

/** A user playbook as stored, without its embedding. */
export interface UserPlaybookRecord extends PlaybookText {
  user_playbook_id: number;
  user_id: string;
  request_id: string | null;
  agent_version: string;
  tags: string[];
  status: LifecycleStatus;
  source: string;
  created_at: number;
  last_modified_timestamp: number;
}

export interface UserPlaybookInsert extends Omit<UserPlaybookRecord, "user_playbook_id" | "created_at" | "last_modified_timestamp"> {
  embedding: number[];
  embedding_model: string;
}

export interface UserPlaybookFilters extends PlaybookFilters {
  userPlaybookIds?: number[];
  userId?: string;
  requestId?: string;
  source?: string;
}

/** A UserPlaybookRecord's columns: what reads and searches return (the in-process index keeps them too, migration 0052). */
export const COLUMNS = `user_playbook_id, user_id, request_id, agent_version, playbook_name, content, trigger, rationale, tags, status, source,
  created_at, last_modified_timestamp`;

function filterSql(scope: Scope, filters: UserPlaybookFilters, params: Params): string {
  const { where, equal } = playbookConditions(scope, filters, params);
  equal("user_id", filters.userId);
  equal("request_id", filters.requestId);
  equal("source", filters.source);
  if (filters.userPlaybookIds) where.push(`user_playbook_id = ANY(${params.add(filters.userPlaybookIds)}::int8[])`);
  return where.join(" AND ");
}

const queries = playbookQueries<UserPlaybookRecord, UserPlaybookFilters>({
  name: "user_playbooks",
  idColumn: "user_playbook_id",
  columns: COLUMNS,
  filterSql,
  byId: (id) => ({ userPlaybookIds: [id] }),
});

/** User playbooks passing the filters, newest first. */
export const listUserPlaybooks = queries.list;
export const findUserPlaybook = queries.find;
/** Vector, full-text or hybrid (fused) search over the user playbooks passing the filters. */
export const searchUserPlaybooks = queries.search;
export const editUserPlaybook = queries.edit;
/** Deletes the matching user playbooks (their links to agent playbooks go with them); returns their ids. */
export const deleteUserPlaybooks = queries.remove;

/** Inserts user playbooks; returns the stored rows in input order, each with its new id. */
export function insertUserPlaybooks(sql: Sql, scope: Scope, playbooks: UserPlaybookInsert[], now: number): Promise<UserPlaybookRecord[]> {
  return inStatements(playbooks, 13, (chunk) => insertUserPlaybookStatement(sql, scope, chunk, now));
}

async function insertUserPlaybookStatement(sql: Sql, scope: Scope, playbooks: UserPlaybookInsert[], now: number): Promise<UserPlaybookRecord[]> {
  const params = new Params();
  const [org, project, at] = [params.add(scope.orgId), params.add(scope.projectId), params.add(now)];
  const rows = playbooks.map(
    (p) =>
      `(${org}, ${project}, ${params.add(p.user_id)}, ${params.add(p.request_id)}, ${params.add(p.agent_version)}, ${params.add(p.playbook_name)},
        ${params.add(p.content)}, ${params.add(p.trigger)}, ${params.add(p.rationale)}, ${params.add(p.tags)}::text[], ${params.add(p.status)},
        ${params.add(p.source)}, ${at}::int8, ${at}::int8, ${params.add(new VectorParam(p.embedding))}::vector, ${params.add(p.embedding_model)})`,
  );
  return sql.query<UserPlaybookRecord>(
    `INSERT INTO user_playbooks (org_id, project_id, user_id, request_id, agent_version, playbook_name, content, trigger, rationale,
       tags, status, source, created_at, last_modified_timestamp, embedding, embedding_model)
     VALUES ${rows.join(",\n")}
     RETURNING ${COLUMNS}`,
    params.values,
  );
}

/**
 * Of the given ids, those naming user playbooks of this project. The rows stay locked against
 * deletion until the transaction ends, so links made to them in it cannot dangle.
 */
export async function lockUserPlaybooksForLinking(sql: Sql, scope: Scope, userPlaybookIds: number[]): Promise<number[]> {
  if (userPlaybookIds.length === 0) return [];
  const params = new Params();
  const where = filterSql(scope, { userPlaybookIds }, params);
  const rows = await sql.query<{ user_playbook_id: number }>(`SELECT user_playbook_id FROM user_playbooks WHERE ${where} FOR KEY SHARE`, params.values);
  return rows.map((row) => row.user_playbook_id);
}

/** How many user playbooks a user has, across all statuses. */
export async function countUserPlaybooks(sql: Sql, scope: Scope, userId: string): Promise<number> {
  const params = new Params();
  const where = filterSql(scope, { userId }, params);
  const [row] = await sql.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM user_playbooks WHERE ${where}`, params.values);
  return row!.n;
}

/** A user's playbooks of one agent version: what an upgrade moves together. */
export interface UserPlaybookGroup {
  user_id: string;
  agent_version: string;
}

/** The groups holding PENDING user playbooks that pass the filters (agent version, playbook name), in order. */
export async function findPendingUserPlaybookGroups(sql: Sql, scope: Scope, filters: UserPlaybookFilters): Promise<UserPlaybookGroup[]> {
  const params = new Params();
  const where = filterSql(scope, { ...filters, statuses: ["PENDING"] }, params);
  return sql.query<UserPlaybookGroup>(
    `SELECT DISTINCT user_id, agent_version FROM user_playbooks WHERE ${where} ORDER BY user_id, agent_version`,
    params.values,
  );
}

/** Upgrades a group's user playbooks (only those named `playbookName`, when given) one lifecycle step (see upgradeLifecycle). */
export function upgradeUserPlaybookGroup(
  sql: Sql,
  scope: Scope,
  group: UserPlaybookGroup & { playbookName?: string },
  now: number,
): Promise<LifecycleUpgrade<UserPlaybookRecord>> {
  const params = new Params();
  const where = filterSql(scope, { userId: group.user_id, agentVersion: group.agent_version, playbookName: group.playbookName }, params);
  return upgradeLifecycle(sql, { table: "user_playbooks", columns: COLUMNS, where, params }, now);
}

/** Archives a user playbook, only while it is still CURRENT; false when it changed status meanwhile. */
export async function archiveCurrentUserPlaybook(sql: Sql, scope: Scope, userPlaybookId: number, now: number): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE user_playbooks SET status = 'ARCHIVED', last_modified_timestamp = $4
     WHERE org_id = $1 AND project_id = $2 AND user_playbook_id = $3 AND status = 'CURRENT' RETURNING 1`,
    [scope.orgId, scope.projectId, userPlaybookId, now],
  );
  return rows.length > 0;
}
