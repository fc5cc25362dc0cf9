import { endpoints } from "@als/contract";
import { purgeUserThroughStream } from "@als/core";
import { actorRefOf } from "@als/identity";
import { implement } from "../../implement.ts";
import { toPurgeStatus } from "../../responses/purge-status.ts";

export default implement(endpoints.governance.streamPurgeUser, {
  async handle({ deps, principal, scope }, input) {
    const { operation, created } = await purgeUserThroughStream(deps, scope, { ...input, actorRef: actorRefOf(principal) });
    return { ...toPurgeStatus(operation), created };
  },
});
