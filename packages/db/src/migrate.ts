import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { Database } from "./driver.ts";

const MIGRATIONS_DIR = fileURLToPath(new URL("../migrations/", import.meta.url));

/** The migrations' file names, in the order they apply. */
const migrationFiles = async () => (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith(".sql")).sort();

/** A digest of every migration's name and text: databases that `migrate` made with equal digests hold the same schema. */
export async function migrationsDigest(): Promise<string> {
  const hash = createHash("sha256");
  for (const name of await migrationFiles()) hash.update(name).update(await readFile(MIGRATIONS_DIR + name));
  return hash.digest("hex");
}

/**
 * Applies the forward-only SQL files of migrations/ that this database has not seen, in name order,
 * in one transaction. The advisory lock lets several processes start at once against one database.
 */
export async function migrate(db: Database): Promise<string[]> {
  const files = await migrationFiles();
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('als:migrations'))");
    await tx.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())");
    const applied = new Set((await tx.query<{ version: string }>("SELECT version FROM schema_migrations")).map((row) => row.version));
    const pending = files.filter((name) => !applied.has(name));
    for (const name of pending) {
      await tx.exec(await readFile(MIGRATIONS_DIR + name, "utf8"));
      await tx.query("INSERT INTO schema_migrations (version) VALUES ($1)", [name]);
    }
    return pending;
  });
}
