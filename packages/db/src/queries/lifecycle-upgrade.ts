import type { Sql } from "../driver.ts";
import type { Params } from "./params.ts";

/** What an upgrade did to one group of learnings, each row as it ended up (the deleted ones as they were). */
export interface LifecycleUpgrade<R> {
  promoted: R[];
  archived: R[];
  deleted: R[];
}

export interface LifecycleGroup {
  table: "profiles" | "user_playbooks";
  /** The row's columns, unqualified. */
  columns: string;
  /** The group's rows (unqualified column names), with its parameters in `params`. */
  where: string;
  params: Params;
}

/**
 * Moves a group of learnings one lifecycle step in one statement: PENDING ones become CURRENT, the
 * CURRENT ones they replace ARCHIVED, and the ARCHIVED ones of the step before are deleted. A group
 * without PENDING learnings is left alone, so nothing is archived without a replacement. The
 * sub-statements share one snapshot: each row moves at most one step, and a generation still being
 * written concurrently is promoted only as far as it had committed.
 */
export async function upgradeLifecycle<R>(sql: Sql, group: LifecycleGroup, now: number): Promise<LifecycleUpgrade<R>> {
  const { table, columns, where, params } = group;
  const at = params.add(now);
  const rows = await sql.query<R & { lifecycle_change: keyof LifecycleUpgrade<R> }>(
    `WITH promoted AS (
       UPDATE ${table} SET status = 'CURRENT', last_modified_timestamp = ${at} WHERE ${where} AND status = 'PENDING' RETURNING ${columns}),
     archived AS (
       UPDATE ${table} SET status = 'ARCHIVED', last_modified_timestamp = ${at}
       WHERE ${where} AND status = 'CURRENT' AND EXISTS (SELECT 1 FROM promoted) RETURNING ${columns}),
     deleted AS (
       DELETE FROM ${table} WHERE ${where} AND status = 'ARCHIVED' AND EXISTS (SELECT 1 FROM promoted) RETURNING ${columns})
     SELECT 'promoted' AS lifecycle_change, * FROM promoted
     UNION ALL SELECT 'archived', * FROM archived
     UNION ALL SELECT 'deleted', * FROM deleted`,
    params.values,
  );
  const upgrade: LifecycleUpgrade<R> = { promoted: [], archived: [], deleted: [] };
  for (const { lifecycle_change, ...row } of rows) upgrade[lifecycle_change].push(row as R);
  return upgrade;
}
