import type { InteractionRecord } from "@als/db";

/** How much of a long turn a transcript keeps; the cut limits are a step of fitting a window into its input budget. */
export interface TranscriptLimits {
  /** Characters of a tool call's data. */
  toolData: number;
  /** Characters of a turn's content, expert and shadow text; null keeps them whole. */
  text: number | null;
}

export const FULL_TURNS: TranscriptLimits = { toolData: 500, text: null };

/**
 * A window of interactions as the extraction prompts read it: one block per turn, with what the
 * user did, the tools the agent called, and — for agent turns — the expert's ideal response and the
 * shadow alternative when the publisher supplied them (playbook extraction compares against them).
 */
export function formatTranscript(window: readonly InteractionRecord[], limits: TranscriptLimits = FULL_TURNS, firstNumber = 1): string {
  return window.map((turn, index) => formatTurn(turn, firstNumber + index, limits)).join("\n");
}

/** One turn's block of a transcript, numbered `number`. */
export function formatTurn(turn: InteractionRecord, number: number, limits: TranscriptLimits): string {
  const text = (value: string) => cut(value, limits.text);
  const lines = [`[${number}] ${turn.role}: ${text(turn.content) || "(no text)"}`];
  if (turn.user_action !== "none") lines.push(`    user action: ${turn.user_action} — ${text(turn.user_action_description ?? "")}`);
  if (turn.interacted_image_url) lines.push(`    interacted with image: ${turn.interacted_image_url}`);
  // Images are never sent: the model is told one was there.
  if (turn.image_encoding) lines.push("    (an image was attached)");
  for (const tool of turn.tools_used) {
    lines.push(`    tool ${tool.tool_name}${tool.status ? ` (${tool.status})` : ""}: ${cut(JSON.stringify(tool.tool_data), limits.toolData)}`);
  }
  if (turn.expert_content) lines.push(`    expert_content (the ideal response): ${text(turn.expert_content)}`);
  if (turn.shadow_content) lines.push(`    shadow_content (an alternative response): ${text(turn.shadow_content)}`);
  return lines.join("\n");
}

/** Keeps the start and the end of a long text, with a marker saying how much was cut between them. */
function cut(value: string, limit: number | null): string {
  if (limit === null || value.length <= limit) return value;
  const keep = Math.floor(limit / 2);
  return `${value.slice(0, keep)} […${value.length - 2 * keep} characters cut to fit the input budget…] ${value.slice(-keep)}`;
}
