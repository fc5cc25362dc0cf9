import { endpoints } from "@als/contract";
import { getRequestsBySession, toInteraction, toRequest } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.requests.get, {
  async handle({ deps, scope }, input) {
    const { sessions, hasMore } = await getRequestsBySession(deps, scope, input);
    return {
      success: true,
      has_more: hasMore,
      sessions: sessions.map((session) => ({
        session_id: session.session_id,
        requests: session.requests.map(({ request, interactions }) => ({ request: toRequest(request), interactions: interactions.map(toInteraction) })),
      })),
      msg: `Found ${sessions.length} session(s)`,
    };
  },
});
