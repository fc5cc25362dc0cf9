import { AppError, endpoints } from "@als/contract";
import { openLocalOperatorSession } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.localSession, {
  async handle({ deps, authMode, fromThisMachine }) {
    // On a local server whoever reaches the API without a credential is the local organisation
    // already; the console's session adds the member's pages, so it is only for this machine.
    if (authMode !== "local") throw new AppError("forbidden", "this server requires sign-in (AUTH_MODE=required): sign in with your email and password");
    if (!fromThisMachine) {
      throw new AppError(
        "forbidden",
        "the local operator's session is only given to a browser on the server's own machine, reached directly over loopback (not through a proxy): sign in with an account instead",
      );
    }
    return openLocalOperatorSession(deps);
  },
});
