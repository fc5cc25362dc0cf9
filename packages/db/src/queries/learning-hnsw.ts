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

async function presentIndexes(sql: Sql): Promise<Set<string>> {
  const rows = await sql.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname = ANY($1::text[])", [
    Object.keys(LEARNING_HNSW),
  ]);
  return new Set(rows.map((row) => row.indexname));
}

/** Drops the learnings' HNSW indexes that exist; the names dropped. */
export async function dropLearningHnsw(sql: Sql): Promise<string[]> {
  const present = [...(await presentIndexes(sql))];
  for (const name of present) await sql.query(`DROP INDEX ${name}`);
  return present;
}

/** The learnings' HNSW indexes that do not exist. */
export async function missingLearningHnsw(sql: Sql): Promise<string[]> {
  const present = await presentIndexes(sql);
  return Object.keys(LEARNING_HNSW).filter((name) => !present.has(name));
}

/** Builds the learnings' HNSW indexes that are missing (a build reads the whole table). */
export async function restoreLearningHnsw(sql: Sql): Promise<void> {
  for (const name of await missingLearningHnsw(sql)) await sql.query(`CREATE INDEX IF NOT EXISTS ${name} ${LEARNING_HNSW[name]}`);
}
