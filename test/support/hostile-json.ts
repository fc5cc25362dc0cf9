import fc from "fast-check";

// Arbitraries of request input no well-behaved client sends, written as text: JSON.stringify
// cannot write a duplicate key or a number beyond a double, and those must reach the server as sent.

/** Keys a plain object inherits or that storage cannot hold. */
export const HOSTILE_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf", "\u0000", "a\u0000b", "\ud800", ""];

/** Strings that are numbers, dates, ids or text at the edge of what storage and the schemas take. */
export const HOSTILE_STRINGS = [
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udc00x",
  "😀",
  "661508424948720109216",
  "9007199254740993",
  "99999999999999999999999999999999",
  "-1",
  "1e400",
  "NaN",
  "2020-02-30T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "9999-12-31T23:59:59Z",
  "275760-09-13T00:00:00Z",
  "x".repeat(9000),
  "'; DROP TABLE interactions; --",
  "%00",
  "../..",
  "true",
  "null",
  "constructor",
  "__proto__",
];

/** Number literals as written: beyond the safe integers, beyond a double, negative zero, tiny. */
export const HOSTILE_NUMBERS = [
  "0",
  "-0",
  "-1",
  "1.5",
  "1e308",
  "1e400",
  "-1e400",
  "1e-400",
  "661508424948720109216",
  "9007199254740993",
  "9007199254740990",
  "9223372036854775808",
  "2147483648",
  "4294967296",
  "123456789012345678901234567890",
];

/** A JSON string literal; lone surrogates and NUL come out escaped, as a client's encoder writes them. */
export const stringLiteral = (text: string): string => JSON.stringify(text);

const hostileString = fc.oneof(fc.constantFrom(...HOSTILE_STRINGS), fc.string({ unit: "binary", maxLength: 12 }));
const key = fc.oneof(fc.constantFrom(...HOSTILE_KEYS), fc.string({ maxLength: 8 }));

/** Arrays or objects nested deeper than any schema: the parser and every walk of the value must survive them. */
export const deepNesting = fc
  .tuple(fc.integer({ min: 50, max: 20_000 }), fc.boolean())
  .map(([depth, asObjects]) => (asObjects ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`));

/** Any JSON value as text, with hostile scalars, keys and duplicate keys. */
export const hostileJson: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom("null", "true", "false"),
    fc.constantFrom(...HOSTILE_NUMBERS),
    fc.integer().map(String),
    hostileString.map(stringLiteral),
    tie("array"),
    tie("object"),
  ),
  array: fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
  object: fc
    .array(fc.tuple(key, tie("value")), { maxLength: 4 })
    .chain((pairs) =>
      // A key repeated: which one a parser keeps is its own business, but it must keep one.
      pairs.length === 0 ? fc.constant(pairs) : fc.option(fc.constantFrom(...pairs), { nil: undefined }).map((again) => (again ? [...pairs, again] : pairs)),
    )
    .map((pairs) => `{${pairs.map(([name, value]) => `${stringLiteral(name)}:${value}`).join(",")}}`),
})).value;

/** A scalar at the edge of what a field takes: the case that gets past the schema and reaches storage. */
export const hostileScalar = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...HOSTILE_STRINGS).map(stringLiteral),
  fc.constantFrom("null", "true", "[]", "{}"),
);

/** A value for a field: usually hostile JSON, sometimes nested past any depth. */
export const hostileField = fc.oneof({ weight: 12, arbitrary: hostileJson }, { weight: 1, arbitrary: deepNesting });

/** Text for a query or path parameter, percent-encoded as sent (lone surrogates as their WTF-8 bytes). */
export const hostileParam = fc.oneof(
  hostileString.map(percentEncoded),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom("%ZZ", "%ED%A0%80", "%E0%A4%A", "%C0%80", "%FF", "%2F", "..", "%00"),
);

/** encodeURIComponent, except that a lone surrogate (which it refuses) becomes the bytes a sloppy encoder sends. */
export function percentEncoded(text: string): string {
  return [...text].map((char) => (char.isWellFormed() ? encodeURIComponent(char) : "%ED%A0%80")).join("");
}
