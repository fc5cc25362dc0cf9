import { setTimeout as sleep } from "node:timers/promises";
import type { Database, Sql } from "../driver.ts";

/** A row whose point changed, as the change log names it (see migrations/0036_vector_change_log.sql). */
export interface ChangedRow {
  collection: string;
  org_id: string;
  project_id: string;
  row_id: string;
}

/** What a follower reads in one statement, under one snapshot. */
export interface ChangesSince {
  /** The snapshot's xmin: every transaction below it had finished; the next read starts here. */
  horizon: bigint;
  /** Entries up to this transaction id may have been pruned. */
  prunedThrough: bigint;
  rows: ChangedRow[];
}

/**
 * Turns the change log on and waits (up to `waitMs`) until every transaction that began before it
 * was on has finished, so that from then on every change is either logged or visible in the tables.
 * True when it was off (changes made until now were not logged).
 */
export async function enableChangeLog(sql: Sql, waitMs: number): Promise<boolean> {
  const [was] = await sql.query<{ on: boolean }>("SELECT change_log AS on FROM vector_sync");
  if (was!.on) return false;
  const [row] = await sql.query<{ xid: string }>("UPDATE vector_sync SET change_log = true RETURNING pg_current_xact_id()::text AS xid");
  const enabledBy = BigInt(row!.xid);
  const deadline = Date.now() + waitMs;
  while ((await currentHorizon(sql)) <= enabledBy) {
    if (Date.now() > deadline) throw new Error(`transactions older than the change log still run after ${waitMs} ms`);
    await sleep(50);
  }
  return true;
}

/**
 * Calls `announced` each time a transaction that added entries to the log commits, before the
 * statement or transaction that committed it answers (migrations/0050_vector_changes_announced.sql),
 * and resolves to what stops it; null where the database cannot tell this process so (PostgreSQL).
 */
export async function hearChanges(db: Database, announced: () => void): Promise<(() => Promise<void>) | null> {
  if (!db.listenInProcess) return null;
  const stop = await db.listenInProcess("als_vector_changes", announced);
  await db.exec("SET als.announce_vector_changes = on");
  return stop;
}

/** Which database this is: a saved graph must not be read for another one. */
export async function databaseIdentity(sql: Sql): Promise<string> {
  const [row] = await sql.query<{ id: string }>("SELECT system_identifier::text AS id FROM pg_control_system()");
  return row!.id;
}

/** The xmin of a snapshot taken now: a rebuild reads the tables after it, then follows the log from it. */
export async function currentHorizon(sql: Sql): Promise<bigint> {
  const [row] = await sql.query<{ horizon: string }>("SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon");
  return BigInt(row!.horizon);
}

/** The rows changed by transactions at or above `horizon` that have committed, each once. */
export async function changesSince(sql: Sql, horizon: bigint): Promise<ChangesSince> {
  const [row] = await sql.query<{ horizon: string; pruned_through: string; rows: ChangedRow[] }>(
    `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
       (SELECT change_log_pruned_through::text FROM vector_sync) AS pruned_through,
       (SELECT coalesce(json_agg(changed), '[]') FROM (SELECT DISTINCT collection, org_id, project_id, row_id
          FROM vector_changes WHERE xid >= $1::text::xid8) changed) AS rows`,
    [horizon.toString()],
  );
  return { horizon: BigInt(row!.horizon), prunedThrough: BigInt(row!.pruned_through), rows: row!.rows };
}

/**
 * Deletes the entries older than `retentionMs`, recording the newest transaction id it deleted.
 * Only entries below this snapshot's xmin go, so what is recorded stays below the xmin of any later
 * snapshot: a follower that has just rebuilt never finds its new position already pruned.
 */
export async function pruneChanges(sql: Sql, retentionMs: number): Promise<void> {
  await sql.query(
    `WITH gone AS (DELETE FROM vector_changes
         WHERE noted_at < clock_timestamp() - make_interval(secs => $1::float8 / 1000) AND xid < pg_snapshot_xmin(pg_current_snapshot())
         RETURNING xid)
     UPDATE vector_sync SET change_log_pruned_through = greatest(change_log_pruned_through, (SELECT max(xid) FROM gone))
     WHERE EXISTS (SELECT 1 FROM gone)`,
    [retentionMs],
  );
}
