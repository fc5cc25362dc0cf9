const QUOTE = 39;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const SPACE = 32;
/** A position's weight letter (A … D) as PostgreSQL numbers weights: D, unwritten, is 0. */
const WEIGHT_OF_LETTER: Record<string, number> = { A: 3, B: 2, C: 1, D: 0 };

/**
 * Packs a tsvector in PostgreSQL's text form (`'lexeme':1A,5 'other':2B …`, as tsvectorout writes
 * it: a quote or a backslash in a lexeme written twice, weight D unwritten) into one Int32Array:
 * per lexeme its number, its count of positions, then (position, weight) pairs. The text form
 * crosses from PGlite's memory as one string per row; the array per lexeme that json_agg would
 * make is what a large index's first load would otherwise allocate and throw away.
 */
export function packTsvector(text: string, lexemeId: (lexeme: string) => number): Int32Array {
  const packed: number[] = [];
  let at = 0;
  const fail = (): never => {
    throw new Error(`not a tsvector's text at offset ${at}: ${text.slice(Math.max(0, at - 10), at + 10)}`);
  };
  while (at < text.length) {
    if (text.charCodeAt(at) === SPACE) {
      at++;
      continue;
    }
    if (text.charCodeAt(at) !== QUOTE) fail();
    at++;
    let lexeme = "";
    for (let from = at; ; ) {
      if (at >= text.length) fail();
      const code = text.charCodeAt(at);
      if (code === QUOTE && text.charCodeAt(at + 1) !== QUOTE) {
        lexeme += text.slice(from, at);
        at++;
        break;
      }
      if (code === QUOTE || code === BACKSLASH) {
        // Written twice: keep one.
        lexeme += text.slice(from, at + 1);
        at += 2;
        from = at;
        continue;
      }
      at++;
    }
    const head = packed.length;
    packed.push(lexemeId(lexeme), 0);
    if (text.charCodeAt(at) !== COLON) continue;
    at++;
    for (;;) {
      const start = at;
      let position = 0;
      for (let code = text.charCodeAt(at); code >= 48 && code <= 57; code = text.charCodeAt(++at)) position = 10 * position + (code - 48);
      if (at === start) fail();
      const weight = WEIGHT_OF_LETTER[text[at]!];
      if (weight !== undefined) at++;
      packed.push(position, weight ?? 0);
      packed[head + 1] = packed[head + 1]! + 1;
      if (text.charCodeAt(at) !== COMMA) break;
      at++;
    }
  }
  return Int32Array.from(packed);
}
