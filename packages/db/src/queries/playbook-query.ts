import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { containsPattern, oneOfSql, Params, VectorParam } from "./params.ts";
import { PROFILE_STATUSES, type ProfileStatus } from "./profiles.ts";
import { fusedRowsSelectSql, type RankedQuery, type RankedScores, rankedQuerySql } from "./ranked-search.ts";

/** Playbooks go through the same lifecycle as profiles. */
export type LifecycleStatus = ProfileStatus;
export const APPROVAL_STATUSES = ["PENDING", "APPROVED", "REJECTED"] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** The text both kinds of playbook carry. */
export interface PlaybookText {
  playbook_name: string;
  content: string;
  trigger: string;
  rationale: string;
}

/** The filters both kinds of playbook share. */
export interface PlaybookFilters {
  agentVersion?: string;
  playbookName?: string;
  statuses?: LifecycleStatus[];
  /** Any-match: a playbook carrying at least one of these tags. */
  tags?: string[];
  /** Case-insensitive substring of the trigger, content or rationale. */
  textContains?: string;
  /** Inclusive bounds of created_at. */
  start?: number;
  end?: number;
}

/**
 * The conditions of the shared filters (scope first), and `equal` for a table's own columns, which
 * skips an unset or empty value.
 */
export function playbookConditions(scope: Scope, filters: PlaybookFilters, params: Params) {
  const where = [`org_id = ${params.add(scope.orgId)}`, `project_id = ${params.add(scope.projectId)}`];
  const equal = (column: string, value: string | undefined) => {
    if (value !== undefined && value !== "") where.push(`${column} = ${params.add(value)}`);
  };
  equal("agent_version", filters.agentVersion);
  equal("playbook_name", filters.playbookName);
  if (filters.statuses?.length) where.push(oneOfSql("status", filters.statuses, PROFILE_STATUSES));
  if (filters.tags?.length) where.push(`tags && ${params.add(filters.tags)}::text[]`);
  if (filters.textContains) {
    const pattern = params.add(containsPattern(filters.textContains));
    where.push(`(trigger ILIKE ${pattern} OR content ILIKE ${pattern} OR rationale ILIKE ${pattern})`);
  }
  if (filters.start !== undefined) where.push(`created_at >= ${params.add(filters.start)}`);
  if (filters.end !== undefined) where.push(`created_at <= ${params.add(filters.end)}`);
  return { where, equal };
}

export type PlaybookSearch = RankedQuery;

/** A playbook's edited columns; keys outside these are never written. */
export interface PlaybookEdit {
  set: Partial<PlaybookText> & { playbook_status?: ApprovalStatus };
  /** The vector of the new text, stored only while trigger and content still are those it was computed from. */
  embedding?: { values: number[]; model: string; computedFrom: { trigger: string; content: string } };
}

const EDITABLE_COLUMNS = ["playbook_name", "content", "trigger", "rationale", "playbook_status"] as const;

export interface PlaybookTable<F> {
  name: "user_playbooks" | "agent_playbooks";
  idColumn: "user_playbook_id" | "agent_playbook_id";
  /** What a row reads as; unqualified names, or qualified by the table name (it is never aliased). */
  columns: string;
  filterSql(scope: Scope, filters: F, params: Params): string;
  byId(id: number): F;
}

/** The reads, searches, edits and deletes both playbook tables answer alike, each over its own columns and filters. */
export function playbookQueries<R, F>(table: PlaybookTable<F>) {
  const { name, idColumn, columns } = table;

  /** Rows passing the filters, newest first. */
  async function list(sql: Sql, scope: Scope, filters: F, limit: number): Promise<R[]> {
    const params = new Params();
    const where = table.filterSql(scope, filters, params);
    return sql.query<R>(`SELECT ${columns} FROM ${name} WHERE ${where} ORDER BY created_at DESC, ${idColumn} DESC LIMIT ${params.add(limit)}`, params.values);
  }

  async function find(sql: Sql, scope: Scope, id: number): Promise<R | undefined> {
    const [found] = await list(sql, scope, table.byId(id), 1);
    return found;
  }

  /**
   * Vector, full-text or hybrid (fused) search over the rows passing the filters, best first, each with
   * what each arm saw of it: its cosine similarity to the query vector and its text score.
   */
  function search(sql: Sql, scope: Scope, filters: F, query: PlaybookSearch): Promise<(R & RankedScores)[]> {
    const params = new Params();
    const target = { table: name, idColumn, idType: "int8", where: table.filterSql(scope, filters, params), params } as const;
    if (query.fusedFound) return sql.query(fusedRowsSelectSql(target, query.fusedFound, query.topK, columns), params.values);
    const ranked = rankedQuerySql(target, query);
    // `ranked` adds only id and the RankedScores, so the row's columns need no qualifying.
    const id = `${name}.${idColumn}`;
    return sql.query(
      `SELECT ${columns}, ranked.score, ranked.similarity, ranked.text_score FROM (${ranked}) ranked JOIN ${name} ON ${id} = ranked.id ORDER BY ranked.score DESC, ${id}`,
      params.values,
    );
  }

  /** Applies an edit to one row; nothing comes back when it is gone or its text moved on. */
  async function edit(sql: Sql, scope: Scope, id: number, change: PlaybookEdit, now: number): Promise<R | undefined> {
    const params = new Params();
    const assignments = [`last_modified_timestamp = ${params.add(now)}`];
    for (const column of EDITABLE_COLUMNS) {
      const value = change.set[column];
      if (value !== undefined) assignments.push(`${column} = ${params.add(value)}`);
    }
    const where = [table.filterSql(scope, table.byId(id), params)];
    if (change.embedding) {
      const { values, model, computedFrom } = change.embedding;
      assignments.push(`embedding = ${params.add(new VectorParam(values))}::vector`, `embedding_model = ${params.add(model)}`);
      where.push(`trigger = ${params.add(computedFrom.trigger)}`, `content = ${params.add(computedFrom.content)}`);
    }
    const [row] = await sql.query<R>(`UPDATE ${name} SET ${assignments.join(", ")} WHERE ${where.join(" AND ")} RETURNING ${columns}`, params.values);
    return row;
  }

  /** Deletes the rows passing the filters; returns their ids. */
  async function remove(sql: Sql, scope: Scope, filters: F): Promise<number[]> {
    const params = new Params();
    const where = table.filterSql(scope, filters, params);
    const rows = await sql.query<Record<string, number>>(`DELETE FROM ${name} WHERE ${where} RETURNING ${idColumn}`, params.values);
    return rows.map((row) => row[idColumn]!);
  }

  return { list, find, search, edit, remove };
}
