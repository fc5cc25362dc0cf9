import { createHash } from "node:crypto";
import type { SessionOutcomeRecord } from "@als/db";
import canonicalize from "canonicalize";

/** Changes when what a report means changes: a report digested under another version is not an exact retry. */
const OUTCOME_CONTRACT_VERSION = "session_outcome/1";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** What an outcome says, as its contract digest covers it. */
export type OutcomePayload = Pick<SessionOutcomeRecord, "session_id" | "outcome" | "occurred_at" | "label" | "value" | "metadata">;

/**
 * The integrity values of an outcome: its payload under the contract version, and the trajectory it
 * finalizes (the ids of the session's requests it covers, in order).
 */
export function outcomeDigests(payload: OutcomePayload, requestIds: readonly string[]) {
  return {
    outcome_contract_digest: sha256(`${OUTCOME_CONTRACT_VERSION}\n${canonicalize(payload)}`),
    finalized_trajectory_digest: sha256(requestIds.join("\n")),
  };
}
