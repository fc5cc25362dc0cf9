import type { Sql } from "../driver.ts";

/**
 * How many words a QueryLexemes keeps. English queries draw on a vocabulary of some tens of
 * thousands of words; past this many the list starts again, so an unusual run of one-off words
 * cannot grow the process's memory without end.
 */
const MAX_WORDS = 50_000;

/**
 * A token PostgreSQL's default text-search parser reads as one plain word and nothing else: ASCII
 * letters (not too many to be indexed), then at most some closing punctuation before a space.
 * Letters joined by a hyphen, a dot, a slash, an apostrophe, an @ or a digit make other tokens
 * (hyphenated words, hosts, paths, emails, numbers), which a query holding them leaves to the
 * statement.
 */
const PLAIN_TOKEN = /^([A-Za-z]{1,200})[.,;:!?]*$/;

/**
 * The lexemes to_tsvector('english', text) makes of a query (tsvector_to_array's list, sorted as
 * PostgreSQL sorts them), as the SQL text arm makes them: the in-process text arm searches with
 * them. A query of plain words (most questions) is answered from the lexemes PostgreSQL gave each of
 * its words before, lower-cased, without a statement: the english configuration stems each word on
 * its own, so a query's lexemes are its words' (a stop word gives none). Words not yet known are
 * asked for in one statement; any other query is made by the statement whole. On PGlite a statement
 * waits its turn behind every other one of the process, searches' row fetches and writes alike.
 */
export class QueryLexemes {
  /** A word (lower case) → its lexeme, or null for a stop word. */
  private readonly lexemeOf = new Map<string, string | null>();

  constructor(private readonly sql: Sql) {}

  async of(text: string): Promise<string[]> {
    const words = plainWords(text);
    if (!words) return this.ofText(text);
    const unknown = [...new Set(words.filter((word) => !this.lexemeOf.has(word)))];
    if (unknown.length > 0 && !(await this.learn(unknown))) return this.ofText(text);
    const lexemes = new Set<string>();
    for (const word of words) {
      const lexeme = this.lexemeOf.get(word);
      if (lexeme) lexemes.add(lexeme);
    }
    return [...lexemes].sort();
  }

  /** Asks PostgreSQL for each word's lexeme; false when a word gave more than one (then nothing is kept). */
  private async learn(words: string[]): Promise<boolean> {
    const rows = await this.sql.query<{ word: string; lexemes: string[] }>(
      `SELECT word, tsvector_to_array(to_tsvector('english', word)) AS lexemes FROM unnest($1::text[]) AS word`,
      [words],
    );
    if (rows.some((row) => row.lexemes.length > 1)) return false;
    if (this.lexemeOf.size + rows.length > MAX_WORDS) this.lexemeOf.clear();
    for (const row of rows) this.lexemeOf.set(row.word, row.lexemes[0] ?? null);
    return true;
  }

  private async ofText(text: string): Promise<string[]> {
    const [row] = await this.sql.query<{ words: string[] }>(`SELECT tsvector_to_array(to_tsvector('english', $1)) AS words`, [text]);
    return row?.words ?? [];
  }
}

/** The query's words in lower case when every token of it is a plain word, otherwise null. */
function plainWords(text: string): string[] | null {
  const words: string[] = [];
  for (const token of text.split(/[ \t\n\r\f\v]+/)) {
    if (token === "") continue;
    const word = PLAIN_TOKEN.exec(token)?.[1];
    if (word === undefined) return null;
    words.push(word.toLowerCase());
  }
  return words;
}
