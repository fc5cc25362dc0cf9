import type { ProviderTrace, TraceFilter } from "./trace-provider.ts";

/**
 * Whether a trace passes every filter (they combine with AND; none selects everything). The check
 * every adapter runs after download, also where filters were pushed down before it: the provider's
 * own matching is not trusted to equal the contract's.
 */
export function matchesFilters(trace: ProviderTrace, filters: readonly TraceFilter[]): boolean {
  return filters.every((filter) => matchesFilter(valueAt(trace.filterable, filter.path), filter));
}

function matchesFilter(value: unknown, filter: TraceFilter): boolean {
  if (filter.op === "exists") return value !== undefined && value !== null;
  const wanted = new Set(filter.values);
  // eq and in differ only in how many values they list: a scalar matches one, an array any member.
  const candidates = Array.isArray(value) ? value : [value];
  return candidates.some((candidate) => {
    const literal = literalOf(candidate);
    return literal !== null && wanted.has(literal);
  });
}

/** The string form a filter value compares with: numbers by their string form, booleans 'true'/'false'. */
function literalOf(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/** `metadata.a.b`, `tags`, `span_attributes.name`: a dotted path into the trace's filterable fields. */
function valueAt(root: unknown, path: string): unknown {
  let current = root;
  for (const key of path.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
