import { endpoints } from "@als/contract";
import { runPlaybookAggregation } from "@als/core";
import { implement } from "../../implement.ts";
import { toReceipt } from "../../responses/aggregation-receipt.ts";

export default implement(endpoints.aggregation.run, {
  async handle({ deps, scope }, input) {
    const operation = await runPlaybookAggregation(deps, scope, input.agent_version, input.wait_for_response);
    const message =
      operation.status === "succeeded"
        ? `Created ${operation.result?.agent_playbooks_created ?? 0} agent playbook(s) from ${operation.result?.clusters_changed ?? 0} changed cluster(s)`
        : `Aggregation is ${operation.status}${operation.error_code ? ` (${operation.error_code})` : ""}`;
    return { success: operation.status !== "failed", message, operation: toReceipt(operation) };
  },
});
