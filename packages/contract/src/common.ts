import { z } from "zod";

/** Enumerations accept any letter case on the wire ('current' → 'CURRENT'). */
const caseInsensitiveEnum = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((value) => (typeof value === "string" ? value.toUpperCase() : value), z.enum(values));

export const STATUSES = ["CURRENT", "PENDING", "ARCHIVED"] as const;
/**
 * A lifecycle status as callers send it: any letter case, and CURRENT also as `null` or the text
 * "None" (the published Python clients' enum spells CURRENT as Python's None).
 */
export const Status = z.preprocess(
  (value) => (value === null || (typeof value === "string" && value.toLowerCase() === "none") ? "CURRENT" : value),
  caseInsensitiveEnum(STATUSES),
);
export type Status = (typeof STATUSES)[number];

export const PLAYBOOK_STATUSES = ["PENDING", "APPROVED", "REJECTED"] as const;
export const PlaybookStatus = caseInsensitiveEnum(PLAYBOOK_STATUSES);
export type PlaybookStatus = (typeof PLAYBOOK_STATUSES)[number];

/**
 * A lifecycle status as responses carry it: CURRENT as null, the others lowercase. That is what the
 * published Python clients parse (their enum spells CURRENT as None), and the contract accepts any
 * letter case. Handlers return the stored value; parsing the wire value again gives it back, so a
 * client that validates responses reads the same.
 */
export const StatusOnWire = Status.transform((status) => (status === "CURRENT" ? null : (status.toLowerCase() as "pending" | "archived")))
  .pipe(z.enum(["pending", "archived"]).nullable())
  .describe("Lifecycle status: null means CURRENT; otherwise 'pending' or 'archived' (requests accept CURRENT, PENDING, ARCHIVED in any case)");

/** An agent playbook's approval status as responses carry it: lowercase, as the published Python clients parse it. */
export const PlaybookStatusOnWire = PlaybookStatus.transform((status) => status.toLowerCase() as "pending" | "approved" | "rejected")
  .pipe(z.enum(["pending", "approved", "rejected"]))
  .describe("Approval status, lowercase: 'pending', 'approved' or 'rejected' (requests accept any case)");

export const SEARCH_MODES = ["vector", "fts", "hybrid"] as const;
export const SearchMode = z.enum(SEARCH_MODES);
export type SearchMode = z.infer<typeof SearchMode>;

export const SOURCE_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,127}$/;
/** A source filter or value: empty means none; otherwise the contract's pattern. */
export const Source = z.string().regex(new RegExp(`^$|${SOURCE_PATTERN.source}`), {
  message: "must match ^[a-z0-9][a-z0-9._:-]{0,127}$ (lowercase ASCII, at most 128 characters)",
});

/** Unix seconds. */
export const UnixSeconds = z.number().int().nonnegative();

export const Tags = z.array(z.string());

/** Longer than any question an agent asks; a longer one would spend the search's deadline on parsing text. */
export const MAX_QUERY_CHARS = 8192;
/** The text of a search or a text filter. */
export const SearchText = z.string().max(MAX_QUERY_CHARS, `must be at most ${MAX_QUERY_CHARS} characters: a search query is a question, not a document`);

/** Vector-arm similarity floor (cosine similarity). */
export const Threshold = z.number().min(0).max(1);

export const BulkDeleteResponse = z.object({
  success: z.boolean(),
  deleted_count: z.number().int(),
  message: z.string(),
});
export type BulkDeleteResponse = z.infer<typeof BulkDeleteResponse>;

export const SuccessMessageResponse = z.object({ success: z.boolean(), message: z.string() });

/** Endpoints without a body accept none, or an empty JSON object. */
export const NoInput = z.object({}).strict().optional();

export const UserId = z.string().min(1).max(255);

/** An ISO 8601 date-time, with or without an offset (without one it is UTC), as Unix seconds. */
const IsoDateTime = z.iso
  .datetime({ offset: true, local: true })
  .transform((text) => Math.floor(Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(text) ? text : `${text}Z`) / 1000))
  .pipe(UnixSeconds);

/**
 * A time bound of a filter: Unix seconds, or an ISO 8601 date-time (Python clients send their
 * datetimes that way). In a query string the seconds arrive as text. Every form ends as Unix
 * seconds within the safe integers, so digits beyond them (or a date that does not exist) are a
 * 422 here rather than a bigint overflow in the database.
 */
export const TimeBound = z.union([UnixSeconds, z.string().regex(/^\d+$/).transform(Number).pipe(UnixSeconds), IsoDateTime]);

/** Optional bounds of a time filter, both inclusive. */
export const TimeRange = {
  start_time: TimeBound.optional(),
  end_time: TimeBound.optional(),
};
export const endAfterStart = (value: { start_time?: number | undefined; end_time?: number | undefined }) =>
  value.start_time === undefined || value.end_time === undefined || value.end_time > value.start_time;
export const END_BEFORE_START = { message: "end_time must be after start_time", path: ["end_time"] };
/** JSON Schema cannot compare two fields: OpenAPI states the rule in words. */
export const END_AFTER_START_RULE = { description: "When both are given, end_time must be after start_time." };

export const StatusFilter = z.array(Status).min(1);
