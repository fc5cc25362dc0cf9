import type { Params } from "./params.ts";

/**
 * The `(...), (...)` list of a multi-row INSERT: every value bound as a parameter, cast to the SQL
 * type named for its column (`text[]`, `vector`, `jsonb`...) where the driver cannot infer it.
 */
export function valuesList(params: Params, rows: readonly (readonly unknown[])[], casts: readonly (string | null)[]): string {
  return rows.map((row) => `(${row.map((value, column) => `${params.add(value)}${casts[column] ? `::${casts[column]}` : ""}`).join(", ")})`).join(",\n");
}
