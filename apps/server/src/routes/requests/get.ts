import { implement } from "../../implement.ts";
import { endpoints } from "@als/contract";
import { getRequestsBySession, toInteraction, toRequest } from "@als/core";

export default implement(endpoints.requests.get, {
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
