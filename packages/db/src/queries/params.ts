/** Collects positional parameters while a query's text is assembled: `params.add(x)` → "$3". */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * `column IN ('A', 'B')` for values of a closed set (a status), written into the statement's text
 * rather than bound. Statements are prepared: bound, a list of statuses is an array of unknown
 * length to the planner, whose generic plan then expects more rows than the plans made for the
 * values, so PostgreSQL planned such a statement anew each time (an agent playbook search's fetch of
 * its rows: 0.26 against 0.12 ms on PGlite). Written, the texts stay few (the subsets of the set).
 * A value outside `known` throws: only our own words reach the text.
 */
export function oneOfSql(column: string, values: readonly string[], known: readonly string[]): string {
  for (const value of values) if (!known.includes(value)) throw new RangeError(`${column}: '${value}' is not one of ${known.join(", ")}`);
  return `${column} IN (${[...new Set(values)].map((value) => `'${value}'`).join(", ")})`;
}

/** pgvector's text form of a vector, bound as a parameter and cast with ::vector. */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.join(",")}]`;
}

/**
 * A search's query vector, with its text written at most once: a unified search binds the same
 * query vector in each kind's statement, and writing 384 numbers as text is a noticeable part of a
 * search's time on the event loop. A search made entirely in the process never writes it.
 */
export class QueryVector {
  #literal: string | undefined;

  constructor(readonly values: readonly number[]) {}

  /** vectorLiteral(values), written at the first use. */
  get literal(): string {
    this.#literal ??= vectorLiteral(this.values);
    return this.#literal;
  }
}

/** `%text%` for ILIKE, with the pattern characters of the text taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
