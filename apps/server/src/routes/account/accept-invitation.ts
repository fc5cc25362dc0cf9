import { endpoints } from "@als/contract";
import { acceptInvitation } from "@als/identity";
import { implement } from "../../implement.ts";

export default implement(endpoints.account.acceptInvitation, {
  async handle({ deps }, input) {
    return acceptInvitation(deps, input);
  },
});
