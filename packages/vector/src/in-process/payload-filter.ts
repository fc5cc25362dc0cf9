import type { Condition, PayloadValue } from "../vector-index.ts";

type Payload = Record<string, PayloadValue>;

/**
 * Whether a point's payload meets every condition, with the meaning Qdrant and the SQL of
 * filter-sql.ts give them. Each condition is turned into its check once per search, since a search
 * tests it on hundreds of points (each graph neighbour, or each of one user's points).
 */
export function payloadFilter(must: readonly Condition[]): (payload: Payload) => boolean {
  const checks = must.map(conditionCheck);
  return (payload) => {
    for (const check of checks) if (!check(payload)) return false;
    return true;
  };
}

function conditionCheck(condition: Condition): (payload: Payload) => boolean {
  const { key } = condition;
  if ("equals" in condition) {
    const wanted = condition.equals;
    return (payload) => (payload[key] ?? null) === wanted;
  }
  if ("anyOf" in condition) {
    const wanted = new Set(condition.anyOf);
    return (payload) => {
      const value = payload[key];
      return typeof value === "string" && wanted.has(value);
    };
  }
  if ("overlaps" in condition) {
    const wanted = new Set(condition.overlaps);
    return (payload) => {
      const value = payload[key];
      return Array.isArray(value) && value.some((item) => wanted.has(item));
    };
  }
  const { gt, gte, lt, lte } = condition.range;
  const orNull = condition.orNull === true;
  return (payload) => {
    const value = payload[key] ?? null;
    if (value === null) return orNull;
    if (typeof value !== "number") return false;
    return (gt === undefined || value > gt) && (gte === undefined || value >= gte) && (lt === undefined || value < lt) && (lte === undefined || value <= lte);
  };
}
