import { profiles, type Database, type Scope } from "@als/db";

const TOPICS = ["Keeps bees in the garden", "Collects vintage fountain pens", "Speaks fluent Japanese", "Is training for a triathlon"];

/** Profiles as a retired model left them: its model id and a vector that means nothing to the current model. */
export async function seedProfilesOfRetiredModel(db: Database, scope: Scope, count: number): Promise<void> {
  const meaningless = Array.from({ length: 384 }, (_, i) => (i === 7 ? 1 : 0));
  const all = Array.from({ length: count }, (_, i) => ({
    profile_id: `p-${String(i).padStart(5, "0")}`,
    user_id: `user-${i % 3}`,
    content: `${TOPICS[i % TOPICS.length]} (${i})`,
    status: "CURRENT" as const,
    source: "",
    profile_time_to_live: "infinity",
    expires_at: null,
    tags: [],
    custom_feature: null,
    extractor_name: null,
    generated_from_request_id: null,
    embedding: meaningless,
    embedding_model: "retired-model",
  }));
  // Bounded statements: each profile binds 15 parameters.
  for (let start = 0; start < all.length; start += 500) {
    await profiles.upsertProfiles(db, scope, all.slice(start, start + 500), Math.floor(Date.now() / 1000));
  }
}

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
