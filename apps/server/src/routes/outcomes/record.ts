import { endpoints } from "@als/contract";
import { recordSessionOutcome, writeOnce } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.outcomes.record, {
  handle: ({ deps, scope, idempotencyKey }, input) =>
    // The session's user is known once its requests are read, in the transaction.
    writeOnce(deps, scope, idempotencyKey, null, (record) => recordSessionOutcome(deps, scope, input, record)),
});
