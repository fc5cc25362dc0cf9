import type { MappingTransform } from "@als/contract";

export const MAX_TEXT_BLOCKS = 100;
export const MAX_SELECTED_TEXT_CHARS = 100_000;

/**
 * What a transform made of a value: the text, `held` when there is no usable text (the record
 * waits, nothing is guessed), or `rejected` when the value is of a shape the transform refuses.
 */
export type TextOutcome = { text: string } | { held: string } | { rejected: string };

/**
 * first_text_block / text_blocks over a content array. Usable blocks are direct: a string element,
 * or an object without a type or of type 'text' whose own `text` is a string with a non-whitespace
 * character; reasoning, tool, image and other typed blocks are skipped and nothing nested is
 * searched. A conversation (elements carrying a role) is refused: the pointer must address one
 * message's content. Over MAX_TEXT_BLOCKS blocks is refused; a selection over
 * MAX_SELECTED_TEXT_CHARS fails, and an oversized first match does not fall through to the next.
 */
export function applyTextTransform(transform: MappingTransform, value: unknown): TextOutcome {
  if (typeof value === "string") return selected(value.trim() === "" ? null : value);
  if (!Array.isArray(value)) return { held: "not_a_content_array" };
  if (value.length > MAX_TEXT_BLOCKS) return { rejected: `more than ${MAX_TEXT_BLOCKS} blocks` };
  if (value.some((block) => block !== null && typeof block === "object" && !Array.isArray(block) && "role" in block)) {
    return { rejected: "a conversation, not one message's content: point at a message's content" };
  }
  const texts = value.map(directText).filter((text): text is string => text !== null);
  if (transform === "first_text_block") return selected(texts[0] ?? null);
  return selected(texts.length === 0 ? null : texts.join("\n"));
}

function selected(text: string | null): TextOutcome {
  if (text === null) return { held: "no_usable_text" };
  if (text.length > MAX_SELECTED_TEXT_CHARS) return { rejected: `selected text over ${MAX_SELECTED_TEXT_CHARS} characters` };
  return { text };
}

function directText(block: unknown): string | null {
  if (typeof block === "string") return block.trim() === "" ? null : block;
  if (block === null || typeof block !== "object" || Array.isArray(block)) return null;
  const { type, text } = block as { type?: unknown; text?: unknown };
  if (type !== undefined && type !== "text") return null;
  return typeof text === "string" && text.trim() !== "" ? text : null;
}
