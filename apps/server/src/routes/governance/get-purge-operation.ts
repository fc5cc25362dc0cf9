import { AppError, endpoints } from "@als/contract";
import { purgeOperations } from "@als/db";
import { implement } from "../../implement.ts";
import { toPurgeStatus } from "../../responses/purge-status.ts";

export default implement(endpoints.governance.getPurgeOperation, {
  async handle({ deps, scope }, input) {
    // Any project of the caller's organisation; another organisation's is unknown.
    const operation = await purgeOperations.findPurge(deps.db, scope, input.purge_id);
    if (!operation) throw AppError.notFound(`purge operation ${input.purge_id}`);
    return toPurgeStatus(operation);
  },
});
