import type { UpdateAgentPlaybookRequest, UpdateUserPlaybookRequest } from "@als/contract";
import { type AgentPlaybookRecord, agentPlaybooks, type Scope, type UserPlaybookRecord, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { applyPlaybookEdit } from "./playbook-text.ts";

/** Changes the given text fields of a user playbook (404 when unknown); a new trigger or content is re-embedded. */
export function updateUserPlaybook(deps: CoreDeps, scope: Scope, request: UpdateUserPlaybookRequest): Promise<UserPlaybookRecord> {
  const { user_playbook_id: id, ...set } = request;
  return applyPlaybookEdit(deps, `user playbook ${id}`, set, {
    find: () => userPlaybooks.findUserPlaybook(deps.db, scope, id),
    edit: (edit) => userPlaybooks.editUserPlaybook(deps.db, scope, id, edit, deps.now()),
  });
}

/** Changes the given text fields and approval status of an agent playbook (404 when unknown). */
export function updateAgentPlaybook(deps: CoreDeps, scope: Scope, request: UpdateAgentPlaybookRequest): Promise<AgentPlaybookRecord> {
  const { agent_playbook_id: id, ...set } = request;
  return applyPlaybookEdit(deps, `agent playbook ${id}`, set, {
    find: () => agentPlaybooks.findAgentPlaybook(deps.db, scope, id),
    edit: (edit) => agentPlaybooks.editAgentPlaybook(deps.db, scope, id, edit, deps.now()),
  });
}
