import type { Sql } from "../driver.ts";

/**
 * The HNSW index of each learning table searched project-wide, as migration 0033 builds it: what
 * pgvector walks when the database answers a vector search. Profiles, searched one user's at a
 * time, have none (migration 0051).
 */
const LEARNING_HNSW: Readonly<Record<string, string>> = {
  user_playbooks_embedding_hnsw: "ON user_playbooks USING hnsw (embedding vector_cosine_ops) WITH (m = 32, ef_construction = 200)",
  agent_playbooks_embedding_hnsw: "ON agent_playbooks USING hnsw (embedding vector_cosine_ops) WITH (m = 32, ef_construction = 200)",
};

/**
 * How a build or a drop takes the table. `concurrently` (a PostgreSQL server, whose other processes
 * keep writing): writes go on while it runs, at about twice the build's time, and a build that
 * fails or is stopped leaves an invalid index, which `missingLearningHnsw` counts as missing.
 * Neither may run inside a transaction.
 */
export interface HnswChange {
  concurrently: boolean;
}

/** Each present index's name, with whether it is valid (usable by searches). */
async function presentIndexes(sql: Sql): Promise<Map<string, boolean>> {
  const rows = await sql.query<{ name: string; valid: boolean }>(
    `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i
      JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relname = ANY($1::text[])`,
    [Object.keys(LEARNING_HNSW)],
  );
  return new Map(rows.map((row) => [row.name, row.valid]));
}

/** Drops the learnings' HNSW indexes that exist; the names dropped. */
export async function dropLearningHnsw(sql: Sql, change: HnswChange): Promise<string[]> {
  const present = [...(await presentIndexes(sql)).keys()];
  for (const name of present) await sql.query(`DROP INDEX ${change.concurrently ? "CONCURRENTLY " : ""}IF EXISTS ${name}`);
  return present;
}

/** Of the learnings' HNSW indexes, those not `present` or not valid there. */
function missingOf(present: Map<string, boolean>): string[] {
  return Object.keys(LEARNING_HNSW).filter((name) => present.get(name) !== true);
}

/** The learnings' HNSW indexes that do not exist or are not valid. */
export async function missingLearningHnsw(sql: Sql): Promise<string[]> {
  return missingOf(await presentIndexes(sql));
}

/** Builds the learnings' HNSW indexes that are missing, an invalid one dropped first (a build reads the whole table). */
export async function restoreLearningHnsw(sql: Sql, change: HnswChange): Promise<string[]> {
  const present = await presentIndexes(sql);
  const missing = missingOf(present);
  const concurrently = change.concurrently ? "CONCURRENTLY " : "";
  for (const name of missing) {
    if (present.has(name)) await sql.query(`DROP INDEX ${concurrently}IF EXISTS ${name}`);
    await sql.query(`CREATE INDEX ${concurrently}IF NOT EXISTS ${name} ${LEARNING_HNSW[name]}`);
  }
  return missing;
}
