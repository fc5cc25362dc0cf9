import { createHash } from "node:crypto";
import type { Collection } from "../collections.ts";
import type { PointRef } from "../vector-index.ts";

// A fixed namespace: the same row maps to the same point id in every process and every rebuild.
const NAMESPACE = Buffer.from("4f3c6d0e8b2a4c1f9e7d5b3a1c0f2e4d", "hex");

/**
 * Qdrant takes unsigned integers or UUIDs as point ids; ours are text (profiles) or numbers, and
 * unique only within a project. A UUIDv5 (RFC 9562) of collection, project and id is one per row.
 */
export function pointIdOf(collection: Collection, ref: PointRef): string {
  const name = JSON.stringify([collection, ref.scope.orgId, ref.scope.projectId, ref.id]);
  const hash = createHash("sha1").update(NAMESPACE).update(name).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
