import { endpoints } from "@als/contract";
import { exportUser } from "@als/core";
import { actorRefOf } from "@als/identity";
import { implementStreamed } from "../../implement.ts";

export default implementStreamed(endpoints.governance.exportUser, {
  async stream({ deps, principal, scope }, input) {
    const { chunks } = await exportUser(deps, scope, { userId: input.user_id, requestId: input.request_id, actorRef: actorRefOf(principal) });
    return chunks;
  },
});
