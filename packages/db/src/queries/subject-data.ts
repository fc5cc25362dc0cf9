import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

// Everything the service holds about one user (the subject) of a project: what an export reads and
// what an erasure deletes. The final check of an erasure does not trust this list: it reads the
// catalog (see findSubjectResidue), so a table added later without being listed here is caught.

/** A table of rows owned by the subject (its `user_id`), exported page by page in `key` order. */
interface SubjectTable {
  table: string;
  key: string;
  keyType: "bigint" | "text";
  /** Fields the export adds to each row (lineage): name → a scalar subquery over the row `t`. */
  extra?: Record<string, string>;
}

/** The sections of an export, in the bundle's order; each is a table of the subject's rows. */
export const SUBJECT_TABLES = [
  { table: "requests", key: "request_id", keyType: "text" },
  { table: "interactions", key: "interaction_id", keyType: "bigint" },
  { table: "profiles", key: "profile_id", keyType: "text" },
  { table: "profile_change_log", key: "id", keyType: "bigint" },
  {
    table: "user_playbooks",
    key: "user_playbook_id",
    keyType: "bigint",
    // Lineage: the agent playbooks it was aggregated into, and what reviews decided about it.
    extra: {
      aggregated_into: `SELECT coalesce(jsonb_agg(s.agent_playbook_id ORDER BY s.agent_playbook_id), '[]') FROM agent_playbook_sources s
                          WHERE s.user_playbook_id = t.user_playbook_id`,
      review_decisions: `SELECT coalesce(jsonb_agg(jsonb_build_object('run_id', d.run_id, 'decision', d.decision, 'reason', d.reason,
                             'replacement_id', d.replacement_id, 'decided_at', d.decided_at) ORDER BY d.decided_at), '[]')
                           FROM playbook_review_decisions d WHERE d.user_playbook_id = t.user_playbook_id`,
    },
  },
  { table: "session_outcomes", key: "outcome_id", keyType: "text" },
  { table: "search_evidence", key: "evidence_id", keyType: "text" },
  { table: "learning_cursors", key: "extractor", keyType: "text" },
  { table: "llm_usage", key: "id", keyType: "bigint" },
  { table: "learning_recoveries", key: "recovery_id", keyType: "bigint" },
  { table: "pending_tool_calls", key: "id", keyType: "text" },
  { table: "extraction_runs", key: "run_id", keyType: "text" },
  { table: "evaluation_sessions", key: "session_id", keyType: "text" },
  { table: "agent_success_evaluations", key: "result_id", keyType: "bigint" },
  { table: "retrieved_learning_evaluations", key: "result_id", keyType: "bigint" },
  { table: "shadow_comparisons", key: "verdict_id", keyType: "bigint" },
  { table: "outcome_inferences", key: "session_id", keyType: "text" },
  { table: "idempotency_keys", key: "idempotency_key", keyType: "text" },
] as const satisfies readonly SubjectTable[];

export type SubjectSection = (typeof SUBJECT_TABLES)[number]["table"];

/** Stored columns that are not the subject's data: the scope (the bundle names it once) and derived search structures. */
const NOT_EXPORTED = ["org_id", "project_id", "embedding", "search_text"];

/**
 * One page of a section of the subject's export: rows as stored (minus NOT_EXPORTED), in key order
 * after `after` (null: from the start), and the key of the last row to continue from.
 */
export async function pageSubjectRows(
  sql: Sql,
  scope: Scope,
  userId: string,
  section: SubjectSection,
  after: string | null,
  limit: number,
): Promise<{ rows: Record<string, unknown>[]; last: string | null }> {
  const spec: SubjectTable = SUBJECT_TABLES.find((each) => each.table === section)!;
  const row = `to_jsonb(t) - ${NOT_EXPORTED.map((column) => `'${column}'`).join(" - ")}`;
  const extra = Object.entries(spec.extra ?? {}).map(([name, subquery]) => `'${name}', (${subquery})`);
  const withExtra = extra.length > 0 ? `${row} || jsonb_build_object(${extra.join(", ")})` : row;
  const found = await sql.query<{ page_key: string; row: Record<string, unknown> }>(
    `SELECT t.${spec.key}::text AS page_key, ${withExtra} AS row FROM ${spec.table} t
      WHERE t.org_id = $1 AND t.project_id = $2 AND t.user_id = $3 AND ($4::text IS NULL OR t.${spec.key} > $4::${spec.keyType})
      ORDER BY t.${spec.key} LIMIT $5`,
    [scope.orgId, scope.projectId, userId, after, limit],
  );
  return { rows: found.map((each) => each.row), last: found.at(-1)?.page_key ?? null };
}

/** One step of an erasure: what it deletes (or rewrites without the subject), and the tables it writes. */
interface ErasureStep {
  name: string;
  /** The tables whose rows the step deletes or updates: their old versions hold the subject until vacuumed. */
  tables: readonly string[];
  erase: (tx: Sql, scope: Scope, userId: string) => Promise<number>;
}

/**
 * The steps of an erasure, in order; each deletes one kind of the subject's rows and returns how many,
 * and runs in a transaction of its own (the operation records it as done in that transaction).
 * Links go first, while the rows they are found by still exist: the search sessions the subject's
 * requests opened and the learnings of theirs that searches served, the review decisions about and
 * the aggregation links of their user playbooks (agent playbooks themselves stay).
 */
export const ERASURE_STEPS: readonly ErasureStep[] = [
  {
    name: "search_session_served",
    tables: ["search_session_served"],
    erase: (tx, scope, userId) =>
      countOf(
        tx,
        `DELETE FROM search_session_served s WHERE s.org_id = $1 AND s.project_id = $2 AND (
           s.session_id IN (SELECT r.session_id FROM requests r WHERE r.org_id = $1 AND r.project_id = $2 AND r.user_id = $3)
           OR (s.kind = 'profile' AND s.item_id IN (SELECT p.profile_id FROM profiles p WHERE p.org_id = $1 AND p.project_id = $2 AND p.user_id = $3))
           OR (s.kind = 'user_playbook' AND s.item_id IN (SELECT u.user_playbook_id::text FROM user_playbooks u
                 WHERE u.org_id = $1 AND u.project_id = $2 AND u.user_id = $3)))`,
        scope,
        userId,
      ),
  },
  {
    name: "playbook_review_decisions",
    tables: ["playbook_review_decisions"],
    erase: (tx, scope, userId) =>
      countOf(
        tx,
        `DELETE FROM playbook_review_decisions d USING user_playbooks u
          WHERE u.org_id = $1 AND u.project_id = $2 AND u.user_id = $3
            AND (d.user_playbook_id = u.user_playbook_id OR d.replacement_id = u.user_playbook_id)`,
        scope,
        userId,
      ),
  },
  {
    name: "agent_playbook_sources",
    tables: ["agent_playbook_sources"],
    erase: (tx, scope, userId) =>
      countOf(
        tx,
        `DELETE FROM agent_playbook_sources s USING user_playbooks u
          WHERE u.org_id = $1 AND u.project_id = $2 AND u.user_id = $3 AND s.user_playbook_id = u.user_playbook_id`,
        scope,
        userId,
      ),
  },
  ...[...SUBJECT_TABLES.map((each) => each.table), "learning_users"].map((table) => ({
    name: table,
    tables: [table],
    erase: (tx: Sql, scope: Scope, userId: string) => countOf(tx, `DELETE FROM ${table} WHERE org_id = $1 AND project_id = $2 AND user_id = $3`, scope, userId),
  })),
  {
    // The contract erases the questions the subject's extraction runs raised in every project of
    // the organisation, and with them those runs (this project's went with the tables above).
    name: "human_questions_elsewhere",
    tables: ["pending_tool_calls", "extraction_runs"],
    erase: async (tx, scope, userId) =>
      (await countOf(tx, "DELETE FROM pending_tool_calls WHERE org_id = $1 AND user_id = $3 AND $2::text IS NOT NULL", scope, userId)) +
      (await countOf(tx, "DELETE FROM extraction_runs WHERE org_id = $1 AND user_id = $3 AND $2::text IS NOT NULL", scope, userId)),
  },
  {
    // Data-source staging of this project: traces held for the subject (pending payloads) go;
    // other projects' stay (the contract's erasure_scope_cleanup).
    name: "data_source_held",
    tables: ["data_source_held"],
    erase: (tx, scope, userId) => countOf(tx, "DELETE FROM data_source_held WHERE org_id = $1 AND project_id = $2 AND user_id = $3", scope, userId),
  },
  {
    // Import receipts stay as suppressions without the subject (no user, session or request), so a
    // reconnect or a mapping edit does not import the erased traces again.
    name: "data_source_receipts",
    tables: ["data_source_receipts"],
    erase: (tx, scope, userId) =>
      countOf(
        tx,
        `UPDATE data_source_receipts SET user_id = NULL, session_id = NULL, request_id = NULL, rule = NULL, phase = 'suppressed'
          WHERE org_id = $1 AND project_id = $2 AND user_id = $3`,
        scope,
        userId,
      ),
  },
  {
    // Samples of this project whose retained records name the subject anywhere lose their records
    // (they read as failed, erased_subject: a fresh sample is needed to validate again).
    name: "data_source_samples",
    tables: ["data_source_samples"],
    erase: (tx, scope, userId) =>
      countOf(
        tx,
        `UPDATE data_source_samples SET status = 'failed', code = 'erased_subject', records = '[]', buckets = '[]', retry_at = NULL,
                lease_token = NULL, lease_expires_at = NULL
          WHERE org_id = $1 AND project_id = $2 AND jsonb_path_exists(records, '$.** ? (@ == $u)', jsonb_build_object('u', $3::text))`,
        scope,
        userId,
      ),
  },
  {
    // Runs that were about the subject alone go; a run that stopped its cursor at the subject moves
    // it to the user before them (the same next user), so no run keeps the id.
    name: "generation_runs",
    tables: ["generation_runs"],
    erase: async (tx, scope, userId) => {
      const removed = await countOf(tx, `DELETE FROM generation_runs WHERE org_id = $1 AND project_id = $2 AND params->>'userId' = $3`, scope, userId);
      await tx.query(
        `UPDATE generation_runs SET progress = jsonb_set(progress, '{after_user}', coalesce(
             (SELECT to_jsonb(max(r.user_id)) FROM requests r WHERE r.org_id = $1 AND r.project_id = $2 AND r.user_id < $3), 'null'))
          WHERE org_id = $1 AND project_id = $2 AND progress->>'after_user' = $3`,
        [scope.orgId, scope.projectId, userId],
      );
      return removed;
    },
  },
];

/**
 * The tables whose files hold the bytes of an erasure's old rows once its steps ran: those the steps
 * write, and the purge operations themselves (the raw user id, until the operation ends).
 */
export const PHYSICAL_REMOVAL_TABLES: readonly string[] = [...new Set([...ERASURE_STEPS.flatMap((step) => step.tables), "purge_operations"])];

async function countOf(tx: Sql, statement: string, scope: Scope, userId: string): Promise<number> {
  return (await tx.query(`${statement} RETURNING 1`, [scope.orgId, scope.projectId, userId])).length;
}

/**
 * Where the subject still appears: every base table of the schema with a `user_id` column, found in
 * the catalog (scoped to the project where the table has one), and the JSON fields that carry user
 * ids (a generation run's filter and cursor). Each entry is `table` or `table.field` with its count.
 */
export async function findSubjectResidue(sql: Sql, scope: Scope, userId: string): Promise<Record<string, number>> {
  const tables = await sql.query<{ table_name: string; scoped: boolean }>(
    `SELECT c.table_name, EXISTS (SELECT 1 FROM information_schema.columns o WHERE o.table_schema = c.table_schema
              AND o.table_name = c.table_name AND o.column_name = 'project_id') AS scoped
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = current_schema() AND c.column_name = 'user_id' AND t.table_type = 'BASE TABLE'
      ORDER BY c.table_name`,
  );
  const probes = tables.map(({ table_name, scoped }) => ({
    name: table_name,
    sql: scoped
      ? `SELECT count(*)::int AS n FROM ${table_name} WHERE org_id = $1 AND project_id = $2 AND user_id = $3`
      : `SELECT count(*)::int AS n FROM ${table_name} WHERE user_id = $3 AND $1::text IS NOT NULL AND $2::text IS NOT NULL`,
  }));
  probes.push({
    name: "generation_runs.params",
    sql: `SELECT count(*)::int AS n FROM generation_runs WHERE org_id = $1 AND project_id = $2 AND (params->>'userId' = $3 OR progress->>'after_user' = $3)`,
  });
  const residue: Record<string, number> = {};
  for (const probe of probes) {
    const [row] = await sql.query<{ n: number }>(probe.sql, [scope.orgId, scope.projectId, userId]);
    if (row!.n > 0) residue[probe.name] = row!.n;
  }
  return residue;
}

/** Outbox entries of the project noted up to `mark` (a vector_outbox_change_seq value) not yet pushed to the vector index. */
export async function countUnpushedChanges(sql: Sql, scope: Scope, mark: number): Promise<number> {
  const [row] = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM vector_outbox WHERE org_id = $1 AND project_id = $2 AND change_seq <= $3", [
    scope.orgId,
    scope.projectId,
    mark,
  ]);
  return row!.n;
}

/** The latest change noted in the vector outbox so far (0 before the first). */
export async function latestOutboxChange(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ mark: number }>("SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS mark FROM vector_outbox_change_seq");
  return row!.mark;
}

/** Rows of each of the subject's tables (SUBJECT_TABLES), as an export states them up front. */
export async function countSubjectRows(sql: Sql, scope: Scope, userId: string): Promise<Record<SubjectSection, number>> {
  const counts = SUBJECT_TABLES.map(({ table }) => `(SELECT count(*)::int FROM ${table} WHERE org_id = $1 AND project_id = $2 AND user_id = $3) AS ${table}`);
  const [row] = await sql.query<Record<SubjectSection, number>>(`SELECT ${counts.join(", ")}`, [scope.orgId, scope.projectId, userId]);
  return row!;
}

/** What an erasure of the subject would remove or suppress in this project, counted (a stream's purge-preview). */
export async function estimateErasure(
  sql: Sql,
  scope: Scope,
  userId: string,
): Promise<{
  requests: number;
  interactions: number;
  profiles: number;
  user_playbooks: number;
  held_records: number;
  import_receipts: number;
  samples: number;
}> {
  const count = (from: string) => `(SELECT count(*)::int FROM ${from} WHERE org_id = $1 AND project_id = $2 AND user_id = $3)`;
  const [row] = await sql.query<Awaited<ReturnType<typeof estimateErasure>>>(
    `SELECT ${count("requests")} AS requests, ${count("interactions")} AS interactions, ${count("profiles")} AS profiles,
            ${count("user_playbooks")} AS user_playbooks, ${count("data_source_held")} AS held_records, ${count("data_source_receipts")} AS import_receipts,
            (SELECT count(*)::int FROM data_source_samples WHERE org_id = $1 AND project_id = $2
                AND jsonb_path_exists(records, '$.** ? (@ == $u)', jsonb_build_object('u', $3::text))) AS samples`,
    [scope.orgId, scope.projectId, userId],
  );
  return row!;
}
