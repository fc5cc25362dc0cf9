import type { Database, Scope } from "@als/db";

/**
 * Records every write of a profile's vector, so a test can tell a profile embedded once from one
 * embedded again by a repeated step.
 */
export async function recordEmbeddingWrites(db: Database): Promise<void> {
  await db.exec(`
    CREATE TABLE embedding_writes (org_id text NOT NULL, project_id text NOT NULL, profile_id text NOT NULL);
    CREATE FUNCTION record_embedding_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO embedding_writes VALUES (NEW.org_id, NEW.project_id, NEW.profile_id); RETURN NEW; END $$;
    CREATE TRIGGER record_embedding_writes AFTER UPDATE OF embedding ON profiles
      FOR EACH ROW EXECUTE FUNCTION record_embedding_write();`);
}

/** How many profiles of the project had their vector written 0, 1, 2… times. */
export async function embeddingWriteCounts(db: Database, scope: Scope): Promise<Record<number, number>> {
  const rows = await db.query<{ writes: number; profiles: number }>(
    `SELECT writes, count(*)::int8 AS profiles FROM (
       SELECT p.profile_id, count(w.profile_id)::int8 AS writes FROM profiles p
       LEFT JOIN embedding_writes w ON w.org_id = p.org_id AND w.project_id = p.project_id AND w.profile_id = p.profile_id
       WHERE p.org_id = $1 AND p.project_id = $2 GROUP BY p.profile_id) per_profile
     GROUP BY writes`,
    [scope.orgId, scope.projectId],
  );
  return Object.fromEntries(rows.map((row) => [row.writes, row.profiles]));
}
