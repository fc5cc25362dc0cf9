import type { FakeLlmReply, FakeLlmRequest } from "@als/test-support/llm-server.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";

/**
 * The deterministic model behind the Python-client suite: the learning scripts of
 * test/support/scripted-llm.ts, plus aggregation (one agent playbook per cluster, restating its
 * first member), review (decided by a keyword in the playbook's content) and query reformulation.
 * A transcript asking to "trigger an auth stall" gets the provider's 401, which stalls learning.
 */
export const AUTH_STALL_PHRASE = "trigger an auth stall";

export function pythonClientReply(request: FakeLlmRequest): FakeLlmReply {
  if (request.user.toLowerCase().includes(AUTH_STALL_PHRASE)) {
    return { status: 401, error: { type: "authentication_error", code: "invalid_api_key", message: "Incorrect API key provided" } };
  }
  if (request.schemaName === "playbook_aggregation") {
    const members = request.user.split("Cluster of user playbooks:")[1] ?? "";
    const first = /^1\. trigger: (.*)\n\s*content: (.*)$/m.exec(members);
    const size = (members.match(/^\d+\. trigger:/gm) ?? []).length;
    return {
      json: {
        restates_approved: false,
        playbook_name: "aggregated",
        trigger: first?.[1] ?? "",
        content: first?.[2] ?? "",
        rationale: `Seen in ${size} user playbooks`,
        tags: [],
      },
    };
  }
  if (request.schemaName === "playbook_review") {
    const content = /^content: (.*)$/m.exec(request.user)?.[1] ?? "";
    if (content.includes("KEEP"))
      return { json: { decision: "accept", reason: "supported by the conversation", reason_code: "grounded_useful", edited: null } };
    if (content.includes("DROP"))
      return { json: { decision: "reject", reason: "not supported by the conversation", reason_code: "unsupported_evidence", edited: null } };
    return {
      json: {
        decision: "edit",
        reason: "too narrow",
        reason_code: "speculative",
        edited: { trigger: "Any order question", content: `${content} (broadened)`, rationale: "generalised" },
      },
    };
  }
  if (request.schemaName === null) {
    // Query reformulation: a standalone query naming what the conversation was about.
    const query = /^Query: (.*)$/m.exec(request.user)?.[1] ?? "";
    const context =
      /Conversation so far:\n([\s\S]*?)\n\nQuery:/
        .exec(request.user)?.[1]
        ?.split("\n")
        .at(-1)
        ?.replace(/^[^:]*: /, "") ?? "";
    return { text: `${query} (about: ${context})` };
  }
  return scriptedReply(request);
}
