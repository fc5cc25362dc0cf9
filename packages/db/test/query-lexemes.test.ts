import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase, QueryLexemes, type Sql } from "@als/db";

// The in-process text arm must search with the very lexemes the SQL arm makes of a query
// (to_tsvector('english')), or the two modes rank differently. QueryLexemes answers plain-word
// queries from the lexemes PostgreSQL gave their words before; here each answer is held against
// the statement's, for queries of plain words and for ones its parser reads otherwise.

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ kind: "pglite" });
});
afterAll(() => db.close());

const statementLexemes = async (text: string) =>
  (await db.query<{ words: string[] }>(`SELECT tsvector_to_array(to_tsvector('english', $1)) AS words`, [text]))[0]!.words;

/** The database, counting the statements that reach it. */
function counted(sql: Sql): { sql: Sql; statements: () => number } {
  let statements = 0;
  return {
    sql: {
      query: (text, params) => {
        statements++;
        return sql.query(text, params);
      },
      exec: (script) => sql.exec(script),
    },
    statements: () => statements,
  };
}

const VOCABULARY = [
  ..."the a an I you does do is are was what which how should would could for of to in on with about and or not".split(" "),
  ..."user users prefers preferred preference running runs ran ponies caresses generously relational database databases".split(" "),
  ..."breakfast weekend weekends refund refunds customer customers deploying deployment configured configuration".split(" "),
  ..."Kubernetes PostgreSQL Python TypeScript lanterns bees beekeeping apiaries happily happiness organisational".split(" "),
];
const PUNCTUATION = ["", "", "", "", ",", ".", "?", "!", ";", ":", "?!", "..."];

/** A plain-word query of 1–12 words, mixed case and closing punctuation, from a seeded generator. */
function plainQuery(next: () => number): string {
  const words = Array.from({ length: 1 + Math.floor(next() * 12) }, () => {
    const word = VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
    const cased = next() < 0.2 ? word.toUpperCase() : next() < 0.3 ? word[0]!.toUpperCase() + word.slice(1) : word;
    return cased + PUNCTUATION[Math.floor(next() * PUNCTUATION.length)]!;
  });
  return words.join(next() < 0.1 ? "  \t" : " ");
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("a query's lexemes", () => {
  test("plain-word queries get the statement's lexemes, and once their words are known, without a statement", async () => {
    const lexemes = counted(db);
    const queries = new QueryLexemes(lexemes.sql);
    const next = seeded(7);
    const texts = Array.from({ length: 300 }, () => plainQuery(next));
    for (const text of texts) expect(await queries.of(text)).toEqual(await statementLexemes(text));
    const learning = lexemes.statements();
    expect(learning).toBeGreaterThan(0);
    expect(learning).toBeLessThan(texts.length / 4);
    for (const text of texts) expect(await queries.of(text)).toEqual(await statementLexemes(text));
    expect(lexemes.statements()).toBe(learning);
  });

  test("queries the parser reads as more than plain words are made by the statement, with the same lexemes as it", async () => {
    const lexemes = counted(db);
    const queries = new QueryLexemes(lexemes.sql);
    const texts = [
      "e-mail the on-call engineer",
      "write to ops@example.com about it",
      "what's the user's timezone?",
      "upgrade to v2.0.1 by 3 pm",
      "see https://example.com/docs/setup and /usr/local/bin",
      "deploy to api.example.com.",
      "e.g. the U.S. office",
      "café crème brûlée",
      "snake_case names",
      "<b>bold</b> & friends",
      "a+b=c",
      "",
      "   ",
      "?!",
    ];
    for (const text of texts) expect(await queries.of(text)).toEqual(await statementLexemes(text));
    // Every text but the two blank ones (no word at all) went to the database whole.
    expect(lexemes.statements()).toBe(texts.length - 2);
  });
});
