import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** PostgreSQL's insufficient_privilege: a role that is not a superuser may not switch the WAL or force a checkpoint. */
const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * Takes the one pass of physical removal for `leaseToken` (or extends the lease it already holds):
 * false while another live process holds it, or until `minIntervalSeconds` after the last pass
 * ended, with the time it may be tried again.
 */
export async function claimPhysicalRemoval(
  sql: Sql,
  leaseToken: string,
  now: number,
  leaseSeconds: number,
  minIntervalSeconds: number,
): Promise<{ claimed: true } | { claimed: false; retryAt: number }> {
  const [row] = await sql.query<{ claimed: boolean; lease_expires_at: number; last_finished_at: number }>(
    `WITH taken AS (
       UPDATE physical_removal_lease SET lease_token = $1, lease_expires_at = $2 + $3
        WHERE (lease_token IS NULL OR lease_token = $1 OR lease_expires_at <= $2) AND last_finished_at + $4 <= $2
       RETURNING 1)
     SELECT EXISTS (SELECT 1 FROM taken) AS claimed, lease_expires_at, last_finished_at FROM physical_removal_lease`,
    [leaseToken, now, leaseSeconds, minIntervalSeconds],
  );
  if (!row || row.claimed) return { claimed: true };
  return { claimed: false, retryAt: Math.max(row.last_finished_at + minIntervalSeconds, Math.min(row.lease_expires_at, now + 5)) };
}

/** Gives the pass up without finishing it (a failure): the next claim may start at once. */
export async function releasePhysicalRemoval(sql: Sql, leaseToken: string): Promise<void> {
  await sql.query("UPDATE physical_removal_lease SET lease_token = NULL, lease_expires_at = 0 WHERE lease_token = $1", [leaseToken]);
}

/** Lets the pass be taken again now (embedded start-up: a lease still held is a crash's). */
export async function expirePhysicalRemovalLease(sql: Sql): Promise<void> {
  await sql.query("UPDATE physical_removal_lease SET lease_token = NULL, lease_expires_at = 0");
}

/** The completed erasures whose bytes are still to be removed. */
export async function findAwaitingPhysicalRemoval(sql: Sql): Promise<(Scope & { purgeId: string })[]> {
  const rows = await sql.query<{ purge_id: string; org_id: string; project_id: string }>(
    "SELECT purge_id, org_id, project_id FROM purge_operations WHERE phase = 'physical_removal' ORDER BY purge_id",
  );
  return rows.map((row) => ({ purgeId: row.purge_id, orgId: row.org_id, projectId: row.project_id }));
}

/** Whether this erasure waits for a pass (false once the pass covered it, or when it failed before its rows were gone). */
export async function awaitsPhysicalRemoval(sql: Sql, purgeId: string): Promise<boolean> {
  return (await sql.query("SELECT 1 FROM purge_operations WHERE purge_id = $1 AND phase = 'physical_removal'", [purgeId])).length > 0;
}

/**
 * Removes the dead row versions of `tables` (names of this schema) and their index entries, then
 * refreshes the tables' planner statistics and removes the old ones. `rewrite` (VACUUM FULL) writes
 * each table and index anew, so no byte of a dead row stays in a page's free space, at the price of
 * an exclusive lock for the duration; without it, VACUUM frees the space for reuse under a lock that
 * lets reads and writes go on. Each statement runs outside a transaction, as VACUUM must.
 */
export async function vacuumTables(sql: Sql, tables: readonly string[], rewrite: boolean): Promise<void> {
  const vacuum = rewrite ? "VACUUM (FULL)" : "VACUUM";
  const names = tables.map((table) => `"${table}"`).join(", ");
  await sql.exec(`${vacuum} ${names}`);
  // Replaces the sampled values (most common values, histograms) that may still quote the subject.
  await sql.exec(`ANALYZE ${names}`);
  // The replaced statistics are dead rows of pg_statistic: they go too (a database owner may vacuum it).
  await sql.exec(`${vacuum} pg_statistic`);
}

/**
 * Ends the WAL segment being written and forces a checkpoint, so the segments that recorded the
 * subject's rows are no longer needed and PostgreSQL removes them (or recycles them, where
 * `wal_recycle` is on: their old bytes stay until overwritten). A role without the privilege
 * leaves that to PostgreSQL's own next checkpoint (checkpoint_timeout): false then.
 */
export async function retireWal(sql: Sql): Promise<boolean> {
  try {
    await sql.query("SELECT pg_switch_wal()");
    await sql.exec("CHECKPOINT");
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === INSUFFICIENT_PRIVILEGE) return false;
    throw error;
  }
}

/**
 * Stamps the erasures the pass covered and ends the pass (which took `durationMs`); the next may
 * start from `now` plus its interval.
 */
export async function finishPhysicalRemoval(sql: Sql, leaseToken: string, purgeIds: readonly string[], now: number, durationMs: number): Promise<void> {
  await sql.query(
    `WITH done AS (
       UPDATE purge_operations SET phase = 'done', physically_removed_at = $3, updated_at = $3
        WHERE purge_id = ANY($2::text[]) AND phase = 'physical_removal' RETURNING 1)
     UPDATE physical_removal_lease SET lease_token = NULL, lease_expires_at = 0, last_finished_at = $3, last_duration_ms = $4
      WHERE lease_token = $1`,
    [leaseToken, purgeIds, now, Math.round(durationMs)],
  );
}

/** How long the last finished pass took, in milliseconds; null before the first. */
export async function lastPassDurationMs(sql: Sql): Promise<number | null> {
  const [row] = await sql.query<{ last_duration_ms: number | null }>("SELECT last_duration_ms FROM physical_removal_lease");
  return row?.last_duration_ms ?? null;
}
