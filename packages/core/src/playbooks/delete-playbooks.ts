import { AppError } from "@als/contract";
import { agentPlaybooks, type Scope, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/** Deletes one user playbook; 404 when the project has none with that id. */
export async function deleteUserPlaybook(deps: CoreDeps, scope: Scope, userPlaybookId: number): Promise<void> {
  const removed = await userPlaybooks.deleteUserPlaybooks(deps.db, scope, { userPlaybookIds: [userPlaybookId] });
  if (removed.length === 0) throw AppError.notFound(`user playbook ${userPlaybookId}`);
}

/** Deletes the listed user playbooks that exist; returns the ids deleted. */
export function deleteUserPlaybooksByIds(deps: CoreDeps, scope: Scope, userPlaybookIds: number[]): Promise<number[]> {
  return userPlaybooks.deleteUserPlaybooks(deps.db, scope, { userPlaybookIds });
}

export function deleteAllUserPlaybooks(deps: CoreDeps, scope: Scope): Promise<number[]> {
  return userPlaybooks.deleteUserPlaybooks(deps.db, scope, {});
}

/** Deletes one agent playbook (its source user playbooks stay); 404 when the project has none with that id. */
export async function deleteAgentPlaybook(deps: CoreDeps, scope: Scope, agentPlaybookId: number): Promise<void> {
  const removed = await agentPlaybooks.deleteAgentPlaybooks(deps.db, scope, { agentPlaybookIds: [agentPlaybookId] });
  if (removed.length === 0) throw AppError.notFound(`agent playbook ${agentPlaybookId}`);
}

export function deleteAgentPlaybooksByIds(deps: CoreDeps, scope: Scope, agentPlaybookIds: number[]): Promise<number[]> {
  return agentPlaybooks.deleteAgentPlaybooks(deps.db, scope, { agentPlaybookIds });
}

export function deleteAllAgentPlaybooks(deps: CoreDeps, scope: Scope): Promise<number[]> {
  return agentPlaybooks.deleteAgentPlaybooks(deps.db, scope, {});
}

/** Deletes every user and agent playbook of the project in one transaction; returns how many. */
export function deleteAllPlaybooks(deps: CoreDeps, scope: Scope): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const agents = await agentPlaybooks.deleteAgentPlaybooks(tx, scope, {});
    const users = await userPlaybooks.deleteUserPlaybooks(tx, scope, {});
    return agents.length + users.length;
  });
}
