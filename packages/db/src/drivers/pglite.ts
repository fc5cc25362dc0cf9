import { mkdir } from "node:fs/promises";
import { PGlite, types } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { StorageUnavailableError, type Database, type Sql } from "../driver.ts";

export interface PgliteOptions {
  /** Directory of the database files; omit for an in-memory database (tests). */
  dataDir?: string;
}

export async function openPglite(options: PgliteOptions): Promise<Database> {
  // PGlite creates its own directory but not the parents (./.data on a fresh checkout).
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const db = await PGlite.create({
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    extensions: { vector },
    parsers: { [types.INT8]: (value: string) => Number(value) },
  });
  // PGlite is one session, so a session setting holds for every query (see drivers/postgres.ts).
  await db.exec("CREATE EXTENSION IF NOT EXISTS vector; SET hnsw.iterative_scan = relaxed_order; SET hnsw.ef_search = 100;");
  // A closed database is storage that is gone, not a bug in the query.
  const open = <T>(work: () => Promise<T>): Promise<T> => (db.closed ? Promise.reject(new StorageUnavailableError("PGlite is closed")) : work());
  const asSql = (target: Pick<PGlite, "query" | "exec">): Sql => ({
    query: <T>(text: string, params?: readonly unknown[]) => open(async () => (await target.query<T>(text, params as unknown[])).rows),
    exec: (script) => open(async () => void (await target.exec(script))),
  });
  return {
    kind: "pglite",
    ...asSql(db),
    transaction: (work) => open(() => db.transaction((tx) => work(asSql(tx)))),
    close: () => (db.closed ? Promise.resolve() : db.close()),
  };
}
