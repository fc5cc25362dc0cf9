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
 * A vector bound as a parameter (cast with ::vector in the statement), sent in the form its engine
 * reads fastest: PGlite gets pgvector's binary form, since parsing the text form in WebAssembly cost
 * about 0.5 ms a vector (47 of the 52 ms of binding 100 of them), on the process's one database
 * thread; a PostgreSQL server gets the text, which it parses on its own cores. Each form is written
 * at most once: a unified search binds its query vector in each kind's statement.
 */
export class VectorParam {
  #text: string | undefined;
  #binary: Uint8Array | undefined;

  constructor(readonly values: readonly number[]) {}

  /** vectorLiteral(values). */
  get text(): string {
    this.#text ??= vectorLiteral(this.values);
    return this.#text;
  }

  /** pgvector's binary form (vector_recv): the dimensions and an unused word as int16, then each value as float4, all big-endian. */
  get binary(): Uint8Array {
    if (!this.#binary) {
      const bytes = new Uint8Array(4 + 4 * this.values.length);
      const view = new DataView(bytes.buffer);
      view.setInt16(0, this.values.length);
      for (const [index, value] of this.values.entries()) view.setFloat32(4 + 4 * index, value);
      this.#binary = bytes;
    }
    return this.#binary;
  }
}

/** `%text%` for ILIKE, with the pattern characters of the text taken literally. */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

/**
 * A vector read in pgvector's binary form (`vector_send(column)`, the layout VectorParam.binary
 * writes). Reading 100k vectors so took 1.4 s against 4.9 as text parsed with JSON.parse
 * (PostgreSQL 15, loopback): a third the bytes to send, and no number to parse from its digits.
 */
export function vectorFromBinary(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = view.getInt16(0);
  if (bytes.byteLength !== 4 + 4 * dimensions) throw new Error(`a vector of ${dimensions} dimensions in ${bytes.byteLength} bytes`);
  const values = new Array<number>(dimensions);
  for (let index = 0; index < dimensions; index++) values[index] = view.getFloat32(4 + 4 * index);
  return values;
}
