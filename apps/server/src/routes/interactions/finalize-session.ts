import { endpoints } from "@als/contract";
import { finalizeSession } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.finalizeSession, {
  async handle({ deps, scope }, input) {
    const { accepted, requestId } = await finalizeSession(deps, scope, input.user_id, input.session_id);
    return {
      success: true,
      accepted,
      message: accepted
        ? "Completion hint accepted: the session's last window is due for learning, which runs in the background"
        : `No request of user '${input.user_id}' in session '${input.session_id}' that learning reads: nothing to finish`,
      request_id: requestId,
    };
  },
});
