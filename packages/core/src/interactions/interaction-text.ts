import type { InteractionItem } from "@als/contract";

/**
 * The text an interaction is found by: what was said, or else what the user did. Empty when it has
 * neither (a bare tool call or image), and then it carries no vector.
 */
export function embeddingTextOfInteraction(item: Pick<InteractionItem, "content" | "user_action_description">): string {
  return item.content.trim() || item.user_action_description?.trim() || "";
}
