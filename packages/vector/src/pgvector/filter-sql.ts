import type { Params } from "@als/db";
import type { Condition, VectorFilter } from "../vector-index.ts";

/** The filter as an SQL condition over the table's rows; `expressionOf` gives the SQL of a payload key. */
export function filterSql(filter: VectorFilter, expressionOf: (key: string) => string, params: Params): string {
  const where = [`org_id = ${params.add(filter.scope.orgId)}`, `project_id = ${params.add(filter.scope.projectId)}`];
  for (const condition of filter.must) where.push(conditionSql(condition, expressionOf(condition.key), params));
  return where.join(" AND ");
}

function conditionSql(condition: Condition, expression: string, params: Params): string {
  if ("equals" in condition) return `${expression} = ${params.add(condition.equals)}`;
  if ("anyOf" in condition) return `${expression} = ANY(${params.add(condition.anyOf)}::text[])`;
  if ("overlaps" in condition) return `${expression} && ${params.add(condition.overlaps)}::text[]`;
  const { gt, gte, lt, lte } = condition.range;
  const bounds = [
    ...(gt !== undefined ? [`${expression} > ${params.add(gt)}`] : []),
    ...(gte !== undefined ? [`${expression} >= ${params.add(gte)}`] : []),
    ...(lt !== undefined ? [`${expression} < ${params.add(lt)}`] : []),
    ...(lte !== undefined ? [`${expression} <= ${params.add(lte)}`] : []),
  ];
  const inRange = bounds.length > 0 ? bounds.join(" AND ") : "true";
  return condition.orNull ? `(${expression} IS NULL OR (${inRange}))` : `(${inRange})`;
}
