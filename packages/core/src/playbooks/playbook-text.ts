import { AppError, CONTENT_OR_TRIGGER_MESSAGE, hasContentOrTrigger } from "@als/contract";
import type { PlaybookEdit, PlaybookText } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * The text a playbook's vector is computed from: its trigger and content, what a search describes
 * (migrations/0002_playbooks.sql says why the rationale is left out).
 */
export function embeddingTextOf(playbook: { trigger: string; content: string }): string {
  return [playbook.trigger.trim(), playbook.content.trim()].filter((text) => text !== "").join("\n");
}

export function embedPlaybooks(deps: Pick<CoreDeps, "embedder">, playbooks: { trigger: string; content: string }[]): Promise<number[][]> {
  return deps.embedder.embedDocuments(playbooks.map(embeddingTextOf));
}

/** How often an edit of trigger or content is retried when another edit of the same text overtakes it. */
const EDIT_ATTEMPTS = 3;

/**
 * Edits one playbook, or answers 404 naming `label`. A new trigger or content gets its vector
 * outside any transaction (PGlite runs one at a time), and the store keeps it only while the text
 * it was computed from is still there; an edit overtaken in between re-reads and tries again.
 */
export async function applyPlaybookEdit<R extends PlaybookText>(
  deps: Pick<CoreDeps, "embedder">,
  label: string,
  set: PlaybookEdit["set"],
  store: { find(): Promise<R | undefined>; edit(edit: PlaybookEdit): Promise<R | undefined> },
): Promise<R> {
  const retext = set.trigger !== undefined || set.content !== undefined;
  for (let attempt = 1; ; attempt++) {
    const edit: PlaybookEdit = { set };
    if (retext) {
      const current = await store.find();
      if (!current) throw AppError.notFound(label);
      const next = { trigger: set.trigger ?? current.trigger, content: set.content ?? current.content };
      if (!hasContentOrTrigger(next)) throw AppError.validation([{ loc: ["body", "content"], msg: CONTENT_OR_TRIGGER_MESSAGE, type: "value_error" }]);
      const [vector] = await embedPlaybooks(deps, [next]);
      edit.embedding = { values: vector!, model: deps.embedder.modelId, computedFrom: { trigger: current.trigger, content: current.content } };
    }
    const edited = await store.edit(edit);
    if (edited) return edited;
    if (!retext) throw AppError.notFound(label);
    if (attempt === EDIT_ATTEMPTS) throw new AppError("conflict", `${label} kept changing while it was being updated; try again`);
  }
}
