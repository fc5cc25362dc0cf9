import { TraceProviderError } from "./trace-provider-error.ts";

/** The list under `key` of a provider's JSON answer (`null` key: the answer is the list itself). */
export function listIn(body: unknown, key: string | null): Record<string, unknown>[] {
  const list = key === null ? body : (body as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) throw new TraceProviderError("unavailable", `the provider's answer has no ${key ?? "top-level"} list`);
  return list.filter((item): item is Record<string, unknown> => item !== null && typeof item === "object" && !Array.isArray(item));
}

export const textOf = (value: unknown): string => (typeof value === "string" ? value : String(value ?? ""));
export const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);

/**
 * Unix seconds of an ISO timestamp a provider sent; NaN when it is not one. A timestamp without a
 * zone is UTC (LangSmith sends them so), never the process's local time.
 */
export function unixSecondsOf(value: unknown): number {
  const text = textOf(value);
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) || !text.includes("T") ? text : `${text}Z`;
  return Math.floor(Date.parse(zoned) / 1000);
}
