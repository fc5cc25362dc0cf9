import { RunPlaybookAggregationRequest, RunPlaybookAggregationResponse } from "@als/contract";
import { runPlaybookAggregation as run } from "@als/core";
import { defineOperation } from "../../operation.ts";
import { toReceipt } from "./receipt.ts";

export const runPlaybookAggregation = defineOperation({
  procedure: "aggregation.run",
  method: "POST",
  path: "/api/run_playbook_aggregation",
  summary: "Aggregate an agent version's user playbooks now; with wait_for_response (default) answer when it has finished",
  input: RunPlaybookAggregationRequest,
  output: RunPlaybookAggregationResponse,
  async handle({ deps, scope }, input) {
    const operation = await run(deps, scope, input.agent_version, input.wait_for_response);
    const message =
      operation.status === "succeeded"
        ? `Created ${operation.result?.agent_playbooks_created ?? 0} agent playbook(s) from ${operation.result?.clusters_changed ?? 0} changed cluster(s)`
        : `Aggregation is ${operation.status}${operation.error_code ? ` (${operation.error_code})` : ""}`;
    return { success: operation.status !== "failed", message, operation: toReceipt(operation) };
  },
});
