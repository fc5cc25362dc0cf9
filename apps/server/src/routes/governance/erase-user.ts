import { endpoints } from "@als/contract";
import { eraseUser } from "@als/core";
import { actorRefOf } from "@als/identity";
import { implement } from "../../implement.ts";
import { toPurgeStatus } from "../../responses/purge-status.ts";

export default implement(endpoints.governance.eraseUser, {
  async handle({ deps, principal, scope }, input) {
    const { operation, created } = await eraseUser(deps, scope, { userId: input.user_id, requestId: input.request_id, actorRef: actorRefOf(principal) });
    return { ...toPurgeStatus(operation), created };
  },
});
