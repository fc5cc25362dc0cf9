import type { Schemas } from "@qdrant/js-client-rest";
import { type Collection, checkPayloadKey } from "../collections.ts";
import type { Condition, VectorFilter } from "../vector-index.ts";

type QdrantFilter = Schemas["Filter"];
type QdrantCondition = Schemas["Condition"];

/** Payload keys every point carries besides its collection's own. */
export const ORG_KEY = "org_id";
export const PROJECT_KEY = "project_id";
export const ROW_ID_KEY = "row_id";

/** The filter as Qdrant's: every condition a `must`, applied by Qdrant while it walks its HNSW graph. */
export function qdrantFilterOf(collection: Collection, filter: VectorFilter): QdrantFilter {
  return {
    must: [
      { key: ORG_KEY, match: { value: filter.scope.orgId } },
      { key: PROJECT_KEY, match: { value: filter.scope.projectId } },
      ...filter.must.map((condition) => {
        checkPayloadKey(collection, condition.key);
        return conditionOf(condition);
      }),
    ],
  };
}

function conditionOf(condition: Condition): QdrantCondition {
  const { key } = condition;
  if ("equals" in condition) return { key, match: { value: condition.equals } };
  // On an array payload, `any` matches when one of its values is among these: the overlap of tags.
  if ("anyOf" in condition) return { key, match: { any: condition.anyOf } };
  if ("overlaps" in condition) return { key, match: { any: condition.overlaps } };
  const inRange: QdrantCondition = { key, range: condition.range };
  return condition.orNull ? { should: [{ is_null: { key } }, inRange] } : inRange;
}
