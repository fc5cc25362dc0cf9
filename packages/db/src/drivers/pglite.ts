import { mkdir } from "node:fs/promises";
import { PGlite, types } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { asStorageError, type Database, DEFAULT_STORAGE_TIMEOUTS, type Sql, type StorageTimeouts, StorageUnavailableError, storageTimeout } from "../driver.ts";
import { withStatementSpans } from "../statement-spans.ts";
import { preparedStatements } from "./pglite-prepared.ts";

export interface PgliteOptions {
  /** Directory of the database files; omit for an in-memory database (tests). */
  dataDir?: string;
  timeouts?: StorageTimeouts;
  /** A dump of another in-memory database (`dumpDataDir`) to start from instead of an empty cluster. */
  loadDataDir?: Blob;
}

/** The PGlite database, which can also dump its files (to start other in-memory databases from). */
export type PgliteDatabase = Database & { dumpDataDir(): Promise<Blob> };

/** The file-system errors PGlite's WebAssembly build numbers as Emscripten does (not as Linux does). */
const EMSCRIPTEN_ERRNO: Record<number, string> = {
  2: "EACCES, permission denied",
  20: "EEXIST, file exists",
  31: "EISDIR, is a directory",
  32: "ELOOP, too many symbolic links",
  44: "ENOENT, no such file or directory",
  51: "ENOSPC, no space left on device",
  54: "ENOTDIR, not a directory",
  63: "EPERM, operation not permitted",
  69: "EROFS, read-only file system",
};

/**
 * PGlite's file-system failures are Emscripten ErrnoErrors: objects with a number and no message,
 * which a start-up failure would show as "[object Object]". An Error naming the directory and the
 * error instead; undefined for anything else.
 */
function fileSystemError(error: unknown, dataDir: string | undefined): Error | undefined {
  const { name, errno } = (error ?? {}) as { name?: unknown; errno?: unknown };
  if (name !== "ErrnoError" || typeof errno !== "number") return undefined;
  return new Error(`PGlite cannot open its data directory ${dataDir ?? "(in memory)"}: ${EMSCRIPTEN_ERRNO[errno] ?? "file-system error"} (errno ${errno})`);
}

/**
 * PGlite in this process: one session that runs one statement or transaction at a time, so a call
 * can only wait for the engine while another transaction holds it. That wait is bounded by
 * `acquireMs` (a transaction) or `acquireMs + statementMs` (a statement); a statement, once running,
 * runs on this thread and no timer can interrupt it.
 */
export async function openPglite(options: PgliteOptions): Promise<PgliteDatabase> {
  const timeouts = options.timeouts ?? DEFAULT_STORAGE_TIMEOUTS;
  // PGlite creates its own directory but not the parents (./.data on a fresh checkout).
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    extensions: { vector },
    parsers: { [types.INT8]: (value: string) => Number(value) },
  }).catch((error: unknown) => {
    throw fileSystemError(error, options.dataDir) ?? error;
  });
  // PGlite is one session, so a session setting holds for every query (see drivers/postgres.ts).
  // wal_recycle off: a WAL segment no longer needed is deleted, not renamed for reuse with its old
  // bytes (an erased user's rows among them) still in it; PGlite's checkpoints run in this session.
  await db.exec("CREATE EXTENSION IF NOT EXISTS vector; SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 200; SET wal_recycle = off;");
  // A closed database is storage that is gone, not a bug in the query.
  const open = <T>(work: () => Promise<T>): Promise<T> => (db.closed ? Promise.reject(new StorageUnavailableError("PGlite is closed", "connection")) : work());
  const statementMs = timeouts.acquireMs + timeouts.statementMs;
  const bounded = <T>(work: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(storageTimeout("no answer from the database", statementMs)), statementMs);
    });
    work.catch(() => {});
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  };
  const failing = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw asStorageError(error);
    }
  };
  const prepared = preparedStatements(db);
  // The locks PGlite's own query() takes: a statement outside a transaction waits for any
  // transaction to end; inside one, it only waits for the statement before it.
  const queryInTransaction = <T>(text: string, params?: readonly unknown[]) => db._runExclusiveQuery(() => prepared<T>(text, params));
  const queryAlone = async <T>(text: string, params?: readonly unknown[]) => {
    const rows = await db._runExclusiveTransaction(() => queryInTransaction<T>(text, params));
    await db.syncToFs();
    return rows;
  };
  const asSql = (
    target: Pick<PGlite, "exec">,
    query: <T>(text: string, params?: readonly unknown[]) => Promise<T[]>,
    check: () => Promise<never> | undefined = () => undefined,
  ): Sql => ({
    query: <T>(text: string, params?: readonly unknown[]) => check() ?? open(() => failing(() => query<T>(text, params))),
    exec: (script) => check() ?? open(() => failing(async () => void (await target.exec(script)))),
  });
  const session = asSql(db, queryAlone);
  return withStatementSpans({
    kind: "pglite",
    query: (text, params) => bounded(session.query(text, params)),
    exec: (script) => bounded(session.exec(script)),
    transaction: (work, transactionOptions) =>
      open(async () => {
        const signal = transactionOptions?.signal;
        let started = false;
        let abandoned = false;
        const check = () => (signal?.aborted ? Promise.reject(signal.reason) : undefined);
        const committed = failing(() =>
          db.transaction(async (tx) => {
            started = true;
            // The caller was told the engine did not come free in time: it must not see this run.
            if (abandoned) throw storageTimeout("the embedded database stayed busy", timeouts.acquireMs);
            const result = await work(asSql(tx, queryInTransaction, check));
            // No COMMIT once aborted: throwing here makes PGlite roll back instead.
            signal?.throwIfAborted();
            return result;
          }),
        );
        committed.catch(() => {});
        let timer: ReturnType<typeof setTimeout> | undefined;
        const notStarted = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            if (started) return;
            abandoned = true;
            reject(storageTimeout("the embedded database stayed busy", timeouts.acquireMs));
          }, timeouts.acquireMs);
        });
        try {
          return await Promise.race([committed, notStarted]);
        } finally {
          clearTimeout(timer);
        }
      }),
    // PGlite hands each notification to its listeners (queueMicrotask) as it parses the answer
    // that carries it, so they run before the call that committed it resumes.
    listenInProcess: (channel, heard) => open(() => failing(() => db.listen(channel, heard))),
    close: () => (db.closed ? Promise.resolve() : db.close()),
    dumpDataDir: () => open(async () => (await db.dumpDataDir("none")) as Blob),
  });
}
