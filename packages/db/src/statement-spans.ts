import { inSpan, tracingOn } from "@als/telemetry";
import type { Database, Sql } from "./driver.ts";

/** The statements' first words we name; any other is `other`. The statement's text is never recorded: it may carry tenant content. */
const OPERATIONS: ReadonlySet<string> = new Set([
  "SELECT",
  "INSERT",
  "UPDATE",
  "DELETE",
  "WITH",
  "CREATE",
  "ALTER",
  "DROP",
  "SET",
  "LOCK",
  "NOTIFY",
  "VACUUM",
  "TRUNCATE",
]);

/** What kind of statement `text` is (its first keyword), not what it says. */
function operationOf(text: string): string {
  const word = /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  return word && OPERATIONS.has(word) ? word : "other";
}

/** The OpenTelemetry name of each engine (db.system): PGlite is PostgreSQL in WebAssembly. */
const SYSTEM = { postgres: "postgresql", pglite: "postgresql" } as const;

function spannedSql(sql: Sql, engine: Database["kind"]): Sql {
  const statement = (operation: string) => ({ "db.system": SYSTEM[engine], "db.operation.name": operation, "als.db.engine": engine });
  return {
    query: (text, params) => {
      // Checked before naming the statement: untraced, a query costs one call more, not a regex.
      if (!tracingOn()) return sql.query(text, params);
      const operation = operationOf(text);
      return inSpan(`db ${operation}`, statement(operation), () => sql.query(text, params));
    },
    exec: (script) => (tracingOn() ? inSpan("db script", statement("script"), () => sql.exec(script)) : sql.exec(script)),
  };
}

/**
 * `db` with a span per statement (named by its kind: `db SELECT`) and per transaction (`db
 * transaction`, its statements as children), when tracing is on; off, one boolean check per call.
 * Both engines are wrapped alike, so embedded and full mode trace the same way.
 */
export function withStatementSpans<D extends Database>(db: D): D {
  const outside = spannedSql(db, db.kind);
  return {
    ...db,
    query: outside.query,
    exec: outside.exec,
    transaction: (work, options) =>
      tracingOn()
        ? inSpan("db transaction", { "db.system": SYSTEM[db.kind], "db.operation.name": "transaction", "als.db.engine": db.kind }, () =>
            db.transaction((tx) => work(spannedSql(tx, db.kind)), options),
          )
        : db.transaction(work, options),
  };
}
