import { commonLexemes, type Database, type RankedQuery } from "@als/db";
import type { Collection } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { processDatabaseOf } from "../process-database.ts";

/**
 * How long this process keeps a table's common lexemes. They come from the planner's statistics,
 * which change only when (auto)ANALYZE runs, and a list a minute old only shifts which words of a
 * query count as common. Read in every search instead, they cost each text arm a pg_stats lookup
 * (0.5 ms in PostgreSQL, 2.6 ms in PGlite, three times a unified search).
 */
const KEEP_SECONDS = 60;

interface Entry {
  lexemes: Promise<readonly string[]>;
  expiresAt: number;
}

const cached = new WeakMap<Database, Map<Collection, Entry>>();

/** The common lexemes of `table` in the process's database, read at most once a KEEP_SECONDS. */
export function commonLexemesOf(deps: Pick<CoreDeps, "db" | "now">, table: Collection): Promise<readonly string[]> {
  const processDb = processDatabaseOf(deps.db);
  let tables = cached.get(processDb);
  if (!tables) {
    tables = new Map<Collection, Entry>();
    cached.set(processDb, tables);
  }
  const now = deps.now();
  const known = tables.get(table);
  if (known && known.expiresAt > now) return known.lexemes;
  // On the process's database, not a search's view of it: the one read serves every search of the
  // next minute, so one search's deadline must not fail it. A failed read is forgotten.
  const entry: Entry = { lexemes: commonLexemes(processDb, table), expiresAt: now + KEEP_SECONDS };
  tables.set(table, entry);
  entry.lexemes.catch(() => {
    if (tables.get(table) === entry) tables.delete(table);
  });
  return entry.lexemes;
}

/** `query` with the common lexemes of the table it searches; a query without a text arm reads none. */
export async function withCommonLexemes(
  deps: Pick<CoreDeps, "db" | "now">,
  table: Collection,
  query: Omit<RankedQuery, "commonLexemes">,
): Promise<RankedQuery> {
  const textArm = query.mode !== "vector" && query.queryText !== undefined && query.queryText !== "";
  return { ...query, commonLexemes: textArm ? await commonLexemesOf(deps, table) : [] };
}
