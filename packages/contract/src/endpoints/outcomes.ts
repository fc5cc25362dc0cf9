import { defineResource } from "../endpoint.ts";
import { GetSessionOutcomesRequest, GetSessionOutcomesResponse, RecordSessionOutcomeRequest, RecordSessionOutcomeResponse } from "../outcomes.ts";

export const outcomesEndpoints = defineResource("outcomes", {
  record: {
    method: "POST",
    path: "/api/session_outcome",
    summary:
      "Report how a session ended; final for the session (an exact retry answers recorded false, a change success false with reason conflicting_finalization); 404 before any request of the session was published",
    input: RecordSessionOutcomeRequest,
    output: RecordSessionOutcomeResponse,
    errors: ["erasure_in_progress"],
    idempotencyKey: true,
  },
  list: {
    method: "POST",
    path: "/api/get_session_outcomes",
    summary: "Session outcomes, newest first, filtered by user, source, outcome, label and time of occurrence",
    input: GetSessionOutcomesRequest,
    output: GetSessionOutcomesResponse,
  },
});
