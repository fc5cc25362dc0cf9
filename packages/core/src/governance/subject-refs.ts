import { createHmac } from "node:crypto";
import type { Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

const REFERENCE_KEY_NAME = "governance_reference_key";

/**
 * The minimized references of an erasure or export: keyed hashes of the user id and of the caller's
 * request_id within the project, under a deployment secret. They tell two requests apart and make a
 * repeat idempotent, and they are what outlives the erasure (purge operations, audit rows,
 * suppression), while the raw id cannot be read back from them.
 */
export async function subjectRefs(deps: Pick<CoreDeps, "services">, scope: Scope, subject: { userId: string; requestId: string }) {
  const key = await deps.services.secrets.get(REFERENCE_KEY_NAME);
  // A JSON array cannot be re-split differently, whatever characters the ids hold.
  const ref = (kind: string, value: string) =>
    `${kind}_${createHmac("sha256", key)
      .update(JSON.stringify([kind, scope.orgId, scope.projectId, value]))
      .digest("base64url")
      .slice(0, 32)}`;
  return { subjectRef: ref("subj", subject.userId), requestRef: ref("req", subject.requestId) };
}
