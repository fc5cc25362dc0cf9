import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";
import { inStatements } from "./in-statements.ts";
import { oneOfSql, Params, VectorParam } from "./params.ts";
import {
  APPROVAL_STATUSES,
  type ApprovalStatus,
  type LifecycleStatus,
  type PlaybookFilters,
  type PlaybookText,
  playbookConditions,
  playbookQueries,
} from "./playbook-query.ts";

/** An agent playbook as stored, without its embedding, with the ids of its source user playbooks. */
export interface AgentPlaybookRecord extends PlaybookText {
  agent_playbook_id: number;
  agent_version: string;
  playbook_status: ApprovalStatus;
  playbook_metadata: string;
  tags: string[];
  status: LifecycleStatus;
  source_user_playbook_ids: number[];
  created_at: number;
  last_modified_timestamp: number;
}

export interface AgentPlaybookInsert extends Omit<AgentPlaybookRecord, "agent_playbook_id" | "created_at" | "last_modified_timestamp"> {
  embedding: number[];
  embedding_model: string;
}

export interface AgentPlaybookFilters extends PlaybookFilters {
  agentPlaybookIds?: number[];
  playbookStatuses?: ApprovalStatus[];
  /** At least one linked source user playbook has exactly this source. */
  sourceOfLinkedUserPlaybook?: string;
}

/**
 * An AgentPlaybookRecord's columns: what reads and searches return (the in-process index keeps them
 * too, migration 0052). The table is never aliased, so the link subquery and the filters can name it
 * in any statement.
 */
export const COLUMNS = `agent_playbook_id, agent_version, playbook_name, content, trigger, rationale, playbook_status, playbook_metadata, tags,
  status, created_at, last_modified_timestamp,
  ARRAY(SELECT s.user_playbook_id FROM agent_playbook_sources s
        WHERE s.agent_playbook_id = agent_playbooks.agent_playbook_id ORDER BY s.user_playbook_id) AS source_user_playbook_ids`;

function filterSql(scope: Scope, filters: AgentPlaybookFilters, params: Params): string {
  const { where } = playbookConditions(scope, filters, params);
  if (filters.agentPlaybookIds) where.push(`agent_playbook_id = ANY(${params.add(filters.agentPlaybookIds)}::int8[])`);
  if (filters.playbookStatuses?.length) where.push(oneOfSql("playbook_status", filters.playbookStatuses, APPROVAL_STATUSES));
  if (filters.sourceOfLinkedUserPlaybook) {
    where.push(`EXISTS (SELECT 1 FROM agent_playbook_sources s JOIN user_playbooks u ON u.user_playbook_id = s.user_playbook_id
      WHERE s.agent_playbook_id = agent_playbooks.agent_playbook_id AND u.source = ${params.add(filters.sourceOfLinkedUserPlaybook)})`);
  }
  return where.join(" AND ");
}

const queries = playbookQueries<AgentPlaybookRecord, AgentPlaybookFilters>({
  name: "agent_playbooks",
  idColumn: "agent_playbook_id",
  columns: COLUMNS,
  filterSql,
  byId: (id) => ({ agentPlaybookIds: [id] }),
});

/** Agent playbooks passing the filters, newest first. */
export const listAgentPlaybooks = queries.list;
export const findAgentPlaybook = queries.find;
/** Vector, full-text or hybrid (fused) search over the agent playbooks passing the filters. */
export const searchAgentPlaybooks = queries.search;
export const editAgentPlaybook = queries.edit;
/** Deletes the matching agent playbooks (and their links, never their sources); returns their ids. */
export const deleteAgentPlaybooks = queries.remove;

/**
 * Inserts agent playbooks and their links to source user playbooks (which the caller has checked
 * and locked); returns the stored rows in input order, each with its new id.
 */
export async function insertAgentPlaybooks(sql: Sql, scope: Scope, playbooks: AgentPlaybookInsert[], now: number): Promise<AgentPlaybookRecord[]> {
  const ids = await inStatements(playbooks, 12, (chunk) => insertAgentPlaybookStatement(sql, scope, chunk, now));
  const links = playbooks.flatMap((p, index) => p.source_user_playbook_ids.map((source) => [ids[index]!, source] as const));
  if (links.length > 0) {
    await sql.query(
      `INSERT INTO agent_playbook_sources (agent_playbook_id, user_playbook_id) SELECT * FROM unnest($1::int8[], $2::int8[]) ON CONFLICT DO NOTHING`,
      [links.map(([agent]) => agent), links.map(([, source]) => source)],
    );
  }
  const stored = await listAgentPlaybooks(sql, scope, { agentPlaybookIds: ids }, ids.length);
  const byId = new Map(stored.map((row) => [row.agent_playbook_id, row]));
  return ids.map((id) => byId.get(id)!);
}

async function insertAgentPlaybookStatement(sql: Sql, scope: Scope, playbooks: AgentPlaybookInsert[], now: number): Promise<number[]> {
  const params = new Params();
  const [org, project, at] = [params.add(scope.orgId), params.add(scope.projectId), params.add(now)];
  const rows = playbooks.map(
    (p) =>
      `(${org}, ${project}, ${params.add(p.agent_version)}, ${params.add(p.playbook_name)}, ${params.add(p.content)}, ${params.add(p.trigger)},
        ${params.add(p.rationale)}, ${params.add(p.playbook_status)}, ${params.add(p.playbook_metadata)}, ${params.add(p.tags)}::text[],
        ${params.add(p.status)}, ${at}::int8, ${at}::int8, ${params.add(new VectorParam(p.embedding))}::vector, ${params.add(p.embedding_model)})`,
  );
  const inserted = await sql.query<{ agent_playbook_id: number }>(
    `INSERT INTO agent_playbooks (org_id, project_id, agent_version, playbook_name, content, trigger, rationale, playbook_status,
       playbook_metadata, tags, status, created_at, last_modified_timestamp, embedding, embedding_model)
     VALUES ${rows.join(",\n")}
     RETURNING agent_playbook_id`,
    params.values,
  );
  return inserted.map((row) => row.agent_playbook_id);
}
