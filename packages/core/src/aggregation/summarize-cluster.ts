import { type Llm, type LlmUsage, renderPrompt } from "@als/ai";
import type { AgentPlaybookRecord } from "@als/db";
import { z } from "zod";
import type { PlaybookCluster } from "./cluster-playbooks.ts";

const AgentPlaybookDraft = z.object({
  restates_approved: z.boolean(),
  playbook_name: z.string(),
  trigger: z.string(),
  content: z.string(),
  rationale: z.string(),
  tags: z.array(z.string()),
});
export type AgentPlaybookDraft = z.infer<typeof AgentPlaybookDraft>;

export const DEFAULT_AGGREGATION_DEFINITION =
  "Guidance that holds for every user of the agent: a recognisable situation, what to do in it, and why, backed by several users' experience.";

/**
 * One LLM call per changed cluster: the agent playbook its members agree on, or null when it says
 * nothing beyond an approved agent playbook (those are given to the model so it does not restate them).
 */
export async function summarizeCluster(
  llm: Llm,
  cluster: PlaybookCluster,
  approved: readonly AgentPlaybookRecord[],
  definition: string | null,
): Promise<{ draft: AgentPlaybookDraft | null; usage: LlmUsage }> {
  const prompt = renderPrompt("playbook-aggregation", {
    definition: definition ?? DEFAULT_AGGREGATION_DEFINITION,
    approved: approved.length === 0 ? "(none)" : approved.map((p) => `- [${p.agent_playbook_id}] when ${p.trigger}: ${p.content}`).join("\n"),
    members: cluster.members.map((m, index) => `${index + 1}. trigger: ${m.trigger}\n   content: ${m.content}\n   rationale: ${m.rationale}`).join("\n"),
  });
  const reply = await llm.generateObject({ system: prompt.system, user: prompt.user, schema: AgentPlaybookDraft, schemaName: "playbook_aggregation" });
  const usable = !reply.value.restates_approved && reply.value.content.trim() !== "";
  return { draft: usable ? reply.value : null, usage: reply.usage };
}
