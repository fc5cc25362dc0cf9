import { EVIDENCE_RECEIPTS, type Evidence } from "@als/contract";
import { dataSourceReceipts, type Scope } from "@als/db";
import type { CoreDeps } from "../../deps.ts";
import { learningStatusOf } from "../../learning/learning-status.ts";
import { activeCollection } from "./collection-status.ts";

/** The stream's most recent import receipts, each with the request it created and learning's status for that request. */
export async function importEvidence(deps: CoreDeps, scope: Scope, streamId: string): Promise<Evidence> {
  await activeCollection(deps, scope, streamId);
  const receipts = await dataSourceReceipts.recentReceipts(deps.db, scope, streamId, EVIDENCE_RECEIPTS);
  return {
    stream_id: streamId,
    receipts: await Promise.all(
      receipts.map(async (receipt) => {
        // Suppressed receipts (an erasure) are not listed; every other receipt names its request and user.
        const learning = await learningStatusOf(deps, scope, receipt.request_id!);
        return {
          trace_id: receipt.external_trace_id,
          phase: receipt.phase as "backfill" | "live" | "retry",
          imported_at: receipt.imported_at,
          request_id: receipt.request_id!,
          user_id: receipt.user_id!,
          session_id: receipt.session_id,
          rule: receipt.rule,
          mapping_revision: receipt.mapping_revision,
          message_units: receipt.message_units,
          learning_status: learning.status,
          learning_reason: learning.reason,
        };
      }),
    ),
  };
}
