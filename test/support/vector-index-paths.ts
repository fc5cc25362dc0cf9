import { expect } from "bun:test";
import type { VectorIndex } from "@als/vector";
import type { TestService } from "./service.ts";

/**
 * The same request answered twice: by the database's own vector search (no index configured), then
 * through `index`, which the service keeps afterwards. Both must answer 200.
 */
export async function bothPaths(svc: TestService, index: VectorIndex, path: string, body: object) {
  svc.deps.vectorIndex = undefined;
  const inSql = await svc.call("POST", path, body);
  svc.deps.vectorIndex = index;
  const viaIndex = await svc.call("POST", path, body);
  expect(inSql.status).toBe(200);
  expect(viaIndex.status).toBe(200);
  return { inSql: inSql.body, viaIndex: viaIndex.body };
}
