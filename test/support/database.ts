import { type Database, openDatabase, type StorageOptions, type StorageTimeouts } from "@als/db";
import { createFreshDatabase } from "./postgres-database.ts";

export type TestMode = "embedded" | "full";

/** TEST_MODE picks the storage engine of the whole run: embedded → PGlite, full → PostgreSQL. */
export const testMode: TestMode = process.env.TEST_MODE === "full" ? "full" : "embedded";

/**
 * A fresh, migrated database for one test file: PGlite in memory, or a new PostgreSQL database
 * on the server of TEST_DATABASE_URL (dropped again by `drop`). `storage` is what it was opened with;
 * `timeouts` unset: the defaults.
 */
export async function freshDatabase(timeouts?: StorageTimeouts): Promise<{ db: Database; storage: StorageOptions; drop: () => Promise<void> }> {
  if (testMode === "embedded") {
    const storage: StorageOptions = { kind: "pglite", ...(timeouts && { timeouts }) };
    const db = await openDatabase(storage);
    return { db, storage, drop: () => db.close() };
  }
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_MODE=full needs TEST_DATABASE_URL (scripts/test starts PostgreSQL and sets it)");
  const fresh = await createFreshDatabase(serverUrl);
  const storage: StorageOptions = { kind: "postgres", url: fresh.url, ...(timeouts && { timeouts }) };
  const db = await openDatabase(storage);
  return {
    db,
    storage,
    drop: async () => {
      await db.close();
      await fresh.drop();
    },
  };
}
