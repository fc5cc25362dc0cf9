import { AppError, type FieldIssue } from "@als/contract";
import type { z } from "zod";

/** zod issues → the contract's 422 issue list, each naming the field path with list indexes. */
export function toFieldIssues(error: z.ZodError, location: "body" | "query"): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const loc: (string | number)[] = [location, ...issue.path.map((part) => (typeof part === "symbol" ? String(part) : part))];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ loc: [...loc, key], msg: "unknown field", type: issue.code }));
    }
    return [{ loc, msg: issue.message, type: issue.code }];
  });
}

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, location: "body" | "query"): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw AppError.validation(toFieldIssues(parsed.error, location));
  return parsed.data;
}
