import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { type Database, DEFAULT_STORAGE_TIMEOUTS, type StorageTimeouts } from "./driver.ts";
import { openPglite } from "./drivers/pglite.ts";
import { openPostgres } from "./drivers/postgres.ts";
import { migrate } from "./migrate.ts";
import { discardTemplate, migratedTemplate } from "./migrated-template.ts";

/** Unset `timeouts`: DEFAULT_STORAGE_TIMEOUTS. */
export type StorageOptions =
  | { kind: "postgres"; url: string; maxConnections?: number; timeouts?: StorageTimeouts }
  /** dataDir undefined → in memory. */
  | { kind: "pglite"; dataDir?: string; timeouts?: StorageTimeouts };

/**
 * How long one migration or maintenance statement may run on PostgreSQL. Building an index over a
 * large table takes minutes (an HNSW graph over 100k learnings about one), far past what a
 * request's statement may. PGlite runs a transaction's statements without a timer.
 */
const MIGRATION_STATEMENT_MS = 60 * 60_000;

/** Opens the storage engine and brings its schema up to date. */
export async function openDatabase(options: StorageOptions): Promise<Database> {
  if (options.kind === "postgres") {
    await migrated(openMaintenanceConnection(options)).then((db) => db.close());
    return openPostgres(options);
  }
  return options.dataDir ? openDataDir(options.dataDir, options.timeouts) : openInMemory(options.timeouts);
}

/**
 * One PostgreSQL connection of its own, whose statements may run as long as a migration's: for work
 * that must not hold a pooled connection or be cut at a request's statement timeout (an index
 * build), and whose session settings and locks stay on it.
 */
export function openMaintenanceConnection(options: Extract<StorageOptions, { kind: "postgres" }>): Database {
  const timeouts = options.timeouts ?? DEFAULT_STORAGE_TIMEOUTS;
  return openPostgres({ ...options, maxConnections: 1, timeouts: { ...timeouts, statementMs: MIGRATION_STATEMENT_MS } });
}

/** Unset `timeouts`: DEFAULT_STORAGE_TIMEOUTS. */
async function openDataDir(dataDir: string, timeouts: StorageTimeouts | undefined): Promise<Database> {
  const options = { dataDir, ...(timeouts && { timeouts }) };
  if (!(await isFresh(dataDir))) return migrated(await openPglite(options));
  return fromTemplate(
    async (template) => migrated(await openPglite({ ...options, loadDataDir: template })),
    () => emptyDirectory(dataDir),
  );
}

/**
 * A fresh database opened from the kept template (migratedTemplate). A template PGlite could not
 * load (a disk fault) is discarded, `undo` removes what it left, and the database starts from a
 * template made anew (or fails with that attempt's own error).
 */
async function fromTemplate(open: (template: Blob) => Promise<Database>, undo: () => Promise<void> = async () => {}): Promise<Database> {
  try {
    return await open(await migratedTemplate());
  } catch {
    await undo();
    await discardTemplate();
    return open(await migratedTemplate());
  }
}

/** No database yet: the directory is missing or empty (a mount point made for it, say). */
async function isFresh(dataDir: string): Promise<boolean> {
  try {
    return (await readdir(dataDir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return true;
    throw error;
  }
}

async function emptyDirectory(dir: string): Promise<void> {
  for (const entry of await readdir(dir).catch(() => [])) await rm(join(dir, entry), { recursive: true, force: true });
}

function openInMemory(timeouts: StorageTimeouts | undefined): Promise<Database> {
  return fromTemplate(async (template) => migrated(await openPglite({ ...(timeouts && { timeouts }), loadDataDir: template })));
}

async function migrated<T extends Database>(db: T): Promise<T> {
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}
