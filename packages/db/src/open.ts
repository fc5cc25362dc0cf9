import type { Database, StorageTimeouts } from "./driver.ts";
import { openPglite } from "./drivers/pglite.ts";
import { openPostgres } from "./drivers/postgres.ts";
import { migrate } from "./migrate.ts";

/** Unset `timeouts`: DEFAULT_STORAGE_TIMEOUTS. */
export type StorageOptions =
  | { kind: "postgres"; url: string; maxConnections?: number; timeouts?: StorageTimeouts }
  /** dataDir undefined → in memory. */
  | { kind: "pglite"; dataDir?: string; timeouts?: StorageTimeouts };

/** Opens the storage engine and brings its schema up to date. */
export async function openDatabase(options: StorageOptions): Promise<Database> {
  const db =
    options.kind === "postgres"
      ? openPostgres(options)
      : await openPglite({ ...(options.dataDir && { dataDir: options.dataDir }), ...(options.timeouts && { timeouts: options.timeouts }) });
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
