import { type Database, DEFAULT_STORAGE_TIMEOUTS, type StorageTimeouts } from "./driver.ts";
import { openPglite } from "./drivers/pglite.ts";
import { openPostgres } from "./drivers/postgres.ts";
import { migrate } from "./migrate.ts";

/** Unset `timeouts`: DEFAULT_STORAGE_TIMEOUTS. */
export type StorageOptions =
  | { kind: "postgres"; url: string; maxConnections?: number; timeouts?: StorageTimeouts }
  /** dataDir undefined → in memory. */
  | { kind: "pglite"; dataDir?: string; timeouts?: StorageTimeouts };

/**
 * How long one migration statement may run on PostgreSQL. Building an index over a large table takes
 * minutes (an HNSW graph over 100k learnings about one), far past what a request's statement may.
 * PGlite runs a transaction's statements without a timer.
 */
const MIGRATION_STATEMENT_MS = 60 * 60_000;

/** Opens the storage engine and brings its schema up to date. */
export async function openDatabase(options: StorageOptions): Promise<Database> {
  if (options.kind === "pglite" && !options.dataDir) return openInMemory(options.timeouts);
  if (options.kind === "postgres") {
    const timeouts = options.timeouts ?? DEFAULT_STORAGE_TIMEOUTS;
    await migrated(openPostgres({ ...options, maxConnections: 1, timeouts: { ...timeouts, statementMs: MIGRATION_STATEMENT_MS } })).then((db) => db.close());
    return openPostgres(options);
  }
  return migrated(await openPglite({ ...(options.dataDir && { dataDir: options.dataDir }), ...(options.timeouts && { timeouts: options.timeouts }) }));
}

/**
 * A new PGlite runs initdb in WebAssembly (about 2 s), while one started from a dump of a migrated,
 * empty database is ready in about 0.3 s. A process that opens many in-memory databases (the tests,
 * the benchmarks) keeps its first one's dump, taken before anything is written, for the others.
 */
let migratedInMemory: Blob | undefined;

async function openInMemory(timeouts: StorageTimeouts | undefined): Promise<Database> {
  const snapshot = migratedInMemory;
  const db = await migrated(await openPglite({ ...(timeouts && { timeouts }), ...(snapshot && { loadDataDir: snapshot }) }));
  migratedInMemory ??= await db.dumpDataDir();
  return db;
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
