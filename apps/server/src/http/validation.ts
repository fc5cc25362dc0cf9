import { AppError, type FieldIssue } from "@als/contract";
import type { z } from "zod";
import { omitNullOptionals } from "./omit-null-optionals.ts";

type Location = "body" | "query" | "path";

/** zod issues → the contract's 422 issue list, each naming the field path with list indexes. */
export function toFieldIssues(error: z.ZodError, location: Location): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const loc: (string | number)[] = [location, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ loc: [...loc, key], msg: "unknown field", type: issue.code }));
    }
    return [{ loc, msg: issue.message, type: issue.code }];
  });
}

/**
 * Validates what a caller sent against an endpoint's input schema: text the database cannot store
 * faithfully is refused (never rewritten), `null` for an optional field means omitted, and every
 * problem is a 422 naming its field.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: Location): z.output<S> {
  refuseDeepNesting(value, location);
  refuseUnstorableText(value, location);
  const parsed = schema.safeParse(omitNullOptionals(schema, value));
  if (!parsed.success) throw AppError.validation(toFieldIssues(parsed.error, location));
  return parsed.data;
}

/**
 * Deeper than any request the contract describes (a trace's metadata included): every walk of a
 * value (the text check, null omission, the schema, JSON.stringify) recurses, and a body of a few
 * kilobytes of brackets would otherwise exhaust the stack and answer 500.
 */
export const MAX_INPUT_DEPTH = 100;

/** 422 for a value nested deeper than MAX_INPUT_DEPTH; measured without recursion, for the same reason. */
export function refuseDeepNesting(value: unknown, location: Location): void {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (next === null || typeof next !== "object") continue;
    if (depth >= MAX_INPUT_DEPTH)
      throw AppError.validation([{ loc: [location], msg: `${location} is nested deeper than ${MAX_INPUT_DEPTH} levels`, type: "too_deep" }]);
    for (const item of Object.values(next)) pending.push([item, depth + 1]);
  }
}

/**
 * 422 for text the database cannot store faithfully, naming where it is. Path parameters are
 * checked with it before the credential is resolved: a project id in the URL is looked up then, and
 * a NUL there would reach the database.
 */
export function refuseUnstorableText(value: unknown, location: Location): void {
  const badText = findUnstorableText(value, [location]);
  if (badText.length > 0) throw AppError.validation(badText);
}

/**
 * Strings (values and keys) holding U+0000, which PostgreSQL text cannot hold, or a lone UTF-16
 * surrogate, which storage would silently turn into U+FFFD (two different ids would then collide).
 */
function findUnstorableText(value: unknown, loc: (string | number)[]): FieldIssue[] {
  if (typeof value === "string") {
    if (value.includes("\u0000")) return [{ loc, msg: "must not contain the NUL character (U+0000)", type: "string_nul" }];
    if (!value.isWellFormed()) return [{ loc, msg: "must not contain a lone UTF-16 surrogate (invalid Unicode)", type: "string_unicode" }];
    return [];
  }
  if (Array.isArray(value)) return value.flatMap((item, index) => findUnstorableText(item, [...loc, index]));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([key, item]) => [
      ...findUnstorableText(key, [...loc, key]).map((issue) => ({ ...issue, msg: `field name ${issue.msg}` })),
      ...findUnstorableText(item, [...loc, key]),
    ]);
  }
  return [];
}
