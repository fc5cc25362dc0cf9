import type { Sql } from "../driver.ts";

/** A row whose point in the vector index is out of date (see migrations/0012_vector_outbox.sql). */
export interface OutboxEntry {
  collection: string;
  org_id: string;
  project_id: string;
  row_id: string;
  change_seq: number;
}

/** The searchable tables and their id columns: each is the collection of the same name. */
const SEARCHABLE_TABLES = [
  ["profiles", "profile_id"],
  ["user_playbooks", "user_playbook_id"],
  ["agent_playbooks", "agent_playbook_id"],
  ["interactions", "interaction_id"],
] as const;

/** Turns the outbox triggers on; true when they were off, so the index missed changes and needs a rebuild. */
export async function enableSync(sql: Sql): Promise<boolean> {
  const rows = await sql.query("UPDATE vector_sync SET enabled = true WHERE NOT enabled RETURNING 1");
  return rows.length > 0;
}

/** Notes every row that has a vector, so the next drains push all of them (a rebuild of the index). */
export async function noteAllRows(sql: Sql): Promise<void> {
  const everyRow = SEARCHABLE_TABLES.map(
    ([table, idColumn]) => `SELECT '${table}', org_id, project_id, ${idColumn}::text FROM ${table} WHERE embedding IS NOT NULL`,
  ).join(" UNION ALL ");
  await sql.query(
    `INSERT INTO vector_outbox (collection, org_id, project_id, row_id) ${everyRow}
     ON CONFLICT (collection, org_id, project_id, row_id) DO UPDATE SET change_seq = EXCLUDED.change_seq`,
  );
}

/**
 * Makes the caller the only drain until its transaction ends; false when another drain holds it.
 * One drain at a time keeps an older state of a row from being pushed over a newer one.
 */
export async function lockDrain(tx: Sql): Promise<boolean> {
  const [row] = await tx.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext('als:vector-outbox')) AS locked");
  return row!.locked;
}

/** The `limit` entries noted longest ago. */
export function oldestEntries(sql: Sql, limit: number): Promise<OutboxEntry[]> {
  return sql.query<OutboxEntry>("SELECT collection, org_id, project_id, row_id, change_seq FROM vector_outbox ORDER BY change_seq LIMIT $1", [limit]);
}

/** Removes the pushed entries, except those changed again since (their change_seq moved on). */
export async function removePushed(sql: Sql, entries: OutboxEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await sql.query(
    `DELETE FROM vector_outbox o USING unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[])
       AS pushed(collection, org_id, project_id, row_id, change_seq)
     WHERE o.collection = pushed.collection AND o.org_id = pushed.org_id AND o.project_id = pushed.project_id
       AND o.row_id = pushed.row_id AND o.change_seq = pushed.change_seq`,
    [
      entries.map((e) => e.collection),
      entries.map((e) => e.org_id),
      entries.map((e) => e.project_id),
      entries.map((e) => e.row_id),
      entries.map((e) => e.change_seq),
    ],
  );
}

/** How many rows wait for a push (tests, status). */
export async function countPending(sql: Sql): Promise<number> {
  const [row] = await sql.query<{ n: number }>("SELECT count(*)::int8 AS n FROM vector_outbox");
  return row!.n;
}
