import { randomUUID } from "node:crypto";
import { AppError, type RecordSessionOutcomeRequest, type RecordSessionOutcomeResponse } from "@als/contract";
import { outcomeInferences, type Scope, type SessionOutcomeRecord, sessionOutcomes } from "@als/db";
import canonicalize from "canonicalize";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import type { RecordAnswer } from "../idempotency/write-once.ts";
import { type OutcomePayload, outcomeDigests } from "./outcome-digests.ts";

type RecordResult = z.input<typeof RecordSessionOutcomeResponse>;

/**
 * Records how a session ended, once. The session must have a published request; its earliest one
 * (by created_at, request_id) names the user and the source. A caller's report is final: an exact
 * retry (same payload, same contract, same session requests) answers recorded false with the same
 * identities, anything else success false with reason conflicting_finalization, the original
 * unchanged. An inferred placeholder is displaced: archived, and the report takes revision 2 (and
 * the session is never inferred again).
 * Outcomes never change profiles or playbooks. `record` (an Idempotency-Key's, see writeOnce) keeps
 * the answer with the session's user, in the transaction.
 */
export async function recordSessionOutcome(
  deps: CoreDeps,
  scope: Scope,
  input: RecordSessionOutcomeRequest,
  record?: RecordAnswer<RecordResult>,
): Promise<RecordResult> {
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    await sessionOutcomes.lockSessionOutcome(tx, scope, input.session_id);
    const requests = await sessionOutcomes.sessionRequests(tx, scope, input.session_id);
    const earliest = requests[0];
    if (earliest === undefined) throw new AppError("not_found", `session ${input.session_id} has no published request: publish one before its outcome`);
    const answer = async (result: RecordResult) => {
      await record?.(tx, result, earliest.user_id);
      return result;
    };
    const payload: OutcomePayload = {
      session_id: input.session_id,
      outcome: input.outcome,
      occurred_at: input.occurred_at,
      label: input.label ?? null,
      value: input.value ?? null,
      metadata: input.metadata ?? null,
    };
    // The trajectory the outcome finalizes: the session's requests, in order.
    const { outcome_contract_digest: contractDigest, finalized_trajectory_digest: trajectoryDigest } = outcomeDigests(
      payload,
      requests.map((request) => request.request_id),
    );

    const existing = await sessionOutcomes.findActiveOutcome(tx, scope, input.session_id);
    if (existing !== null && !existing.is_inferred) {
      const exact =
        existing.outcome_contract_digest === null
          ? canonicalize(payloadOf(existing)) === canonicalize(payload)
          : existing.outcome_contract_digest === contractDigest && existing.finalized_trajectory_digest === trajectoryDigest;
      return answer(
        exact
          ? { success: true, recorded: false, ...identitiesOf(existing) }
          : { success: false, recorded: false, reason: "conflicting_finalization", ...identitiesOf(existing) },
      );
    }
    if (existing !== null) await sessionOutcomes.archiveOutcome(tx, scope, existing.outcome_id, now);
    // The caller's report is final: the session's inference stops for good.
    await outcomeInferences.settleInference(tx, scope, input.session_id, now);
    const row: SessionOutcomeRecord = {
      ...payload,
      outcome_id: randomUUID(),
      user_id: earliest.user_id,
      source: earliest.source,
      is_inferred: false,
      outcome_revision: existing === null ? 1 : 2,
      outcome_contract_digest: contractDigest,
      finalized_trajectory_digest: trajectoryDigest,
      trajectory_through_request_id: null,
    };
    await sessionOutcomes.insertOutcome(tx, scope, row, now);
    return answer({ success: true, recorded: true, ...identitiesOf(row) });
  });
}

function payloadOf(row: SessionOutcomeRecord) {
  return { session_id: row.session_id, outcome: row.outcome, occurred_at: row.occurred_at, label: row.label, value: row.value, metadata: row.metadata };
}

/** A legacy row (written before the identities existed) keeps them null. */
function identitiesOf(row: SessionOutcomeRecord) {
  const legacy = row.outcome_contract_digest === null;
  return {
    outcome_id: legacy ? null : row.outcome_id,
    outcome_revision: row.outcome_revision,
    outcome_contract_digest: row.outcome_contract_digest,
    finalized_trajectory_digest: row.finalized_trajectory_digest,
  };
}
