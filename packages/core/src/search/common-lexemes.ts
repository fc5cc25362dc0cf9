import { commonLexemes, type Database, type RankedQuery } from "@als/db";
import type { Collection } from "@als/vector";
import type { CoreDeps } from "../deps.ts";

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

/** The common lexemes of the process's tables, each read at most once a KEEP_SECONDS (ProcessServices.lexemes). */
export class CommonLexemes {
  private readonly tables = new Map<Collection, Entry>();

  /**
   * `database`: the process's own, not a search's view of it: one read serves every search of the
   * next minute, so one search's deadline must not fail it.
   */
  constructor(private readonly database: Database) {}

  /** The common lexemes of `table`; a failed read is forgotten. */
  of(table: Collection, now: number): Promise<readonly string[]> {
    const known = this.tables.get(table);
    if (known && known.expiresAt > now) return known.lexemes;
    const entry: Entry = { lexemes: commonLexemes(this.database, table), expiresAt: now + KEEP_SECONDS };
    this.tables.set(table, entry);
    entry.lexemes.catch(() => {
      if (this.tables.get(table) === entry) this.tables.delete(table);
    });
    return entry.lexemes;
  }
}

/** `query` with the common lexemes of the table it searches; a query without a text arm reads none. */
export async function withCommonLexemes(
  deps: Pick<CoreDeps, "services" | "now">,
  table: Collection,
  query: Omit<RankedQuery, "commonLexemes">,
): Promise<RankedQuery> {
  const textArm = query.mode !== "vector" && query.queryText !== undefined && query.queryText !== "";
  return { ...query, commonLexemes: textArm ? await deps.services.lexemes.of(table, deps.now()) : [] };
}
