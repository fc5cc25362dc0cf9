/**
 * Clients of the peer service post their whole record model on add (every field, defaults
 * included): fields only the service sets, and fields this service does not have. Such fields are
 * ignored, never refused, and each one that carried a value is named in the response's warnings.
 * A null carries nothing (null means omitted), so it is not named.
 */
export interface IgnoredFieldRules {
  /** The fields of the record the add schema reads. */
  known: ReadonlySet<string>;
  /** Fields of the stored record that only the service sets (ids, timestamps). */
  readOnly: ReadonlySet<string>;
}

/** The warnings of one added entry (`path` is its place in the request, e.g. `user_profiles[0]`). */
export function ignoredFieldWarnings(path: string, entry: Record<string, unknown>, rules: IgnoredFieldRules, extra: readonly string[] = []): string[] {
  const sent = Object.entries(entry).filter(([key, value]) => value !== null && value !== undefined && !rules.known.has(key));
  const readOnly = sent.filter(([key]) => rules.readOnly.has(key)).map(([key]) => key);
  const unknown = [...sent.filter(([key]) => !rules.readOnly.has(key)).map(([key]) => key), ...extra];
  return [
    ...(readOnly.length > 0 ? [`${path}: read-only field(s) ignored (the service sets them): ${readOnly.join(", ")}`] : []),
    ...(unknown.length > 0 ? [`${path}: unknown field(s) ignored: ${unknown.join(", ")}`] : []),
  ];
}

/** The fields a record's wire form has and its add schema does not read: those only the service sets. */
export function readOnlyFields(record: { shape: Record<string, unknown> }, add: { shape: Record<string, unknown> }): ReadonlySet<string> {
  return new Set(Object.keys(record.shape).filter((key) => !(key in add.shape)));
}

/** Only the fields an add schema reads: what goes on to be stored. */
export function knownFieldsOf<T extends Record<string, unknown>>(entry: T, known: ReadonlySet<string>): T {
  return Object.fromEntries(Object.entries(entry).filter(([key]) => known.has(key))) as T;
}
