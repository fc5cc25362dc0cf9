import type { Condition, PayloadValue } from "../vector-index.ts";

/** Whether a point's payload meets every condition, with the meaning Qdrant and the SQL of filter-sql.ts give them. */
export function payloadPasses(payload: Record<string, PayloadValue>, must: readonly Condition[]): boolean {
  return must.every((condition) => conditionHolds(payload[condition.key] ?? null, condition));
}

function conditionHolds(value: PayloadValue, condition: Condition): boolean {
  if ("equals" in condition) return value === condition.equals;
  if ("anyOf" in condition) return typeof value === "string" && condition.anyOf.includes(value);
  if ("overlaps" in condition) return Array.isArray(value) && value.some((item) => condition.overlaps.includes(item));
  if (value === null) return condition.orNull === true;
  if (typeof value !== "number") return false;
  const { gt, gte, lt, lte } = condition.range;
  return (gt === undefined || value > gt) && (gte === undefined || value >= gte) && (lt === undefined || value < lt) && (lte === undefined || value <= lte);
}
