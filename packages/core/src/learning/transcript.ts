import type { InteractionRecord } from "@als/db";

const TOOL_DATA_MAX = 500;

/**
 * A window of interactions as the extraction prompts read it: one block per turn, with what the
 * user did, the tools the agent called, and — for agent turns — the expert's ideal response and the
 * shadow alternative when the publisher supplied them (playbook extraction compares against them).
 */
export function formatTranscript(window: readonly InteractionRecord[]): string {
  return window
    .map((turn, index) => {
      const lines = [`[${index + 1}] ${turn.role}: ${turn.content || "(no text)"}`];
      if (turn.user_action !== "none") lines.push(`    user action: ${turn.user_action} — ${turn.user_action_description ?? ""}`);
      if (turn.interacted_image_url) lines.push(`    interacted with image: ${turn.interacted_image_url}`);
      if (turn.image_encoding) lines.push("    (an image was attached)");
      for (const tool of turn.tools_used) {
        const data = JSON.stringify(tool.tool_data);
        lines.push(
          `    tool ${tool.tool_name}${tool.status ? ` (${tool.status})` : ""}: ${data.length > TOOL_DATA_MAX ? `${data.slice(0, TOOL_DATA_MAX)}…` : data}`,
        );
      }
      if (turn.expert_content) lines.push(`    expert_content (the ideal response): ${turn.expert_content}`);
      if (turn.shadow_content) lines.push(`    shadow_content (an alternative response): ${turn.shadow_content}`);
      return lines.join("\n");
    })
    .join("\n");
}
