const EMAIL = /[\w.+-]+@[\w-]+(\.[\w-]+)+/g;
const LONG_NUMBER = /\d{6,}/g;
/** Characters of one string left in an example that would otherwise exceed its bound. */
const SHORTENED_STRING_CHARS = 1_000;

/**
 * An example as the generation model may see it (rule 6): e-mail addresses and long digit runs (phone,
 * card, account numbers) masked, the structure and message text kept, within `maxBytes` as JSON
 * (long strings are shortened; null when even that does not fit).
 */
export function maskExample(value: unknown, maxBytes: number): unknown {
  const masked = mapStrings(value, (text) => text.replace(EMAIL, "<email>").replace(LONG_NUMBER, "<number>"));
  if (fits(masked, maxBytes)) return masked;
  const shortened = mapStrings(masked, (text) => (text.length > SHORTENED_STRING_CHARS ? `${text.slice(0, SHORTENED_STRING_CHARS)}…` : text));
  return fits(shortened, maxBytes) ? shortened : null;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

const fits = (value: unknown, maxBytes: number) => Buffer.byteLength(JSON.stringify(value), "utf8") <= maxBytes;
