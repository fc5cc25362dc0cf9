import { AppError, type FieldIssue, type NewAgentPlaybook, type NewUserPlaybook } from "@als/contract";
import { type AgentPlaybookRecord, agentPlaybooks, type Scope, type Sql, type UserPlaybookRecord, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { embedPlaybooks } from "./playbook-text.ts";

/** Adds user playbooks, embedded before the write so no transaction waits on the model; `withinCommit` writes in the same transaction. */
export async function addUserPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  input: NewUserPlaybook[],
  withinCommit?: (tx: Sql, stored: UserPlaybookRecord[]) => Promise<void>,
): Promise<UserPlaybookRecord[]> {
  const embeddings = await embedPlaybooks(deps, input);
  const rows = input.map((p, index) => ({
    ...p,
    request_id: p.request_id ?? null,
    embedding: embeddings[index]!,
    embedding_model: deps.embedder.modelId,
  }));
  return deps.db.transaction(async (tx) => {
    const stored = await userPlaybooks.insertUserPlaybooks(tx, scope, rows, deps.now());
    await withinCommit?.(tx, stored);
    return stored;
  });
}

/**
 * Adds agent playbooks linked to the user playbooks they were made from. Every source id must name
 * a user playbook of this project (422 naming the list index otherwise); the sources stay locked
 * against deletion until the links are written. `withinCommit` writes in the same transaction.
 */
export async function addAgentPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  input: NewAgentPlaybook[],
  withinCommit?: (tx: Sql, stored: AgentPlaybookRecord[]) => Promise<void>,
): Promise<AgentPlaybookRecord[]> {
  const embeddings = await embedPlaybooks(deps, input);
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const wanted = [...new Set(input.flatMap((p) => p.source_user_playbook_ids))];
    const found = new Set(await userPlaybooks.lockUserPlaybooksForLinking(tx, scope, wanted));
    const unknown = input.flatMap((p, index) =>
      p.source_user_playbook_ids.flatMap((id, position): FieldIssue[] =>
        found.has(id)
          ? []
          : [
              {
                loc: ["body", "agent_playbooks", index, "source_user_playbook_ids", position],
                msg: `no user playbook ${id} in this project`,
                type: "value_error",
              },
            ],
      ),
    );
    if (unknown.length > 0) throw AppError.validation(unknown);
    const rows = input.map((p, index) => ({ ...p, embedding: embeddings[index]!, embedding_model: deps.embedder.modelId }));
    const stored = await agentPlaybooks.insertAgentPlaybooks(tx, scope, rows, now);
    await withinCommit?.(tx, stored);
    return stored;
  });
}
