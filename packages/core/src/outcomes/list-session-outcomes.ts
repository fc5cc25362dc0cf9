import type { GetSessionOutcomesRequest, SessionOutcome } from "@als/contract";
import { type Scope, sessionOutcomes } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";

/** The project's session outcomes (archived placeholders excluded), newest occurrence first. */
export async function listSessionOutcomes(deps: CoreDeps, scope: Scope, input: GetSessionOutcomesRequest): Promise<z.input<typeof SessionOutcome>[]> {
  const rows = await sessionOutcomes.listOutcomes(
    deps.db,
    scope,
    {
      sessionIds: input.session_ids,
      userId: input.user_id,
      source: input.source,
      outcome: input.outcome,
      label: input.label,
      startTime: input.start_time,
      endTime: input.end_time,
    },
    input.top_k,
    input.offset,
  );
  // A legacy row keeps its identities null, as recording answers for it.
  return rows.map((row) => ({ ...row, outcome_id: row.outcome_contract_digest === null ? null : row.outcome_id }));
}
