import { GetRequestsRequest, GetRequestsResponse } from "@als/contract";
import { getRequestsBySession, toInteraction, toRequest } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const getRequests = defineOperation({
  procedure: "requests.get",
  method: "POST",
  path: "/api/get_requests",
  summary: "A user's most recent requests with their interactions, grouped by session",
  input: GetRequestsRequest,
  output: GetRequestsResponse,
  async handle({ deps, scope }, input) {
    const sessions = await getRequestsBySession(deps, scope, input.user_id, input.top_k);
    return {
      success: true,
      sessions: sessions.map((session) => ({
        session_id: session.session_id,
        requests: session.requests.map(({ request, interactions }) => ({ request: toRequest(request), interactions: interactions.map(toInteraction) })),
      })),
      msg: `Found ${sessions.length} session(s)`,
    };
  },
});
