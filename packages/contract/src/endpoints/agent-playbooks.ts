import { BulkDeleteResponse, NoInput, SuccessMessageResponse } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import {
  AddAgentPlaybookRequest,
  AddAgentPlaybookResponse,
  AgentPlaybooksResponse,
  DeleteAgentPlaybookRequest,
  DeleteAgentPlaybooksByIdsRequest,
  GetAgentPlaybooksRequest,
  SearchAgentPlaybooksRequest,
  UpdateAgentPlaybookRequest,
  UpdateAgentPlaybookStatusRequest,
} from "../playbooks.ts";

export const agentPlaybooksEndpoints = defineResource("agentPlaybooks", {
  add: {
    method: "POST",
    path: "/api/add_agent_playbook",
    summary: "Add agent playbooks (PENDING approval unless given), optionally linked to their source user playbooks",
    input: AddAgentPlaybookRequest,
    output: AddAgentPlaybookResponse,
    errors: ["embedding_unavailable"],
    idempotencyKey: true,
  },
  search: {
    method: "POST",
    path: "/api/search_agent_playbooks",
    summary: "Search agent playbooks: vector, fts or hybrid (the default); CURRENT and PENDING unless filtered; source matches linked user playbooks",
    input: SearchAgentPlaybooksRequest,
    output: AgentPlaybooksResponse,
    errors: ["embedding_unavailable", "not_implemented", "llm_unavailable", "overloaded"],
    rateClass: "search",
  },
  deleteByIds: {
    method: "DELETE",
    path: "/api/delete_agent_playbooks_by_ids",
    summary: "Delete agent playbooks by id; unknown ids are not counted",
    input: DeleteAgentPlaybooksByIdsRequest,
    output: BulkDeleteResponse,
  },
  get: {
    method: "POST",
    path: "/api/get_agent_playbooks",
    summary: "Agent playbooks, APPROVED ones unless playbook_status_filter says otherwise, newest first",
    input: GetAgentPlaybooksRequest,
    output: AgentPlaybooksResponse,
  },
  delete: {
    method: "DELETE",
    path: "/api/delete_agent_playbook",
    summary: "Delete one agent playbook (404 when unknown); its source user playbooks stay",
    input: DeleteAgentPlaybookRequest,
    output: SuccessMessageResponse,
    errors: ["not_found"],
  },
  updateStatus: {
    method: "PUT",
    path: "/api/update_agent_playbook_status",
    summary: "Approve, reject or return an agent playbook to PENDING (any letter case)",
    input: UpdateAgentPlaybookStatusRequest,
    output: SuccessMessageResponse,
    errors: ["not_found"],
  },
  deleteAll: {
    method: "DELETE",
    path: "/api/delete_all_agent_playbooks",
    summary: "Delete every agent playbook of the project",
    input: NoInput,
    output: BulkDeleteResponse,
  },
  update: {
    method: "PUT",
    path: "/api/update_agent_playbook",
    summary: "Change the name, content, trigger, rationale or approval status of an agent playbook",
    input: UpdateAgentPlaybookRequest,
    output: SuccessMessageResponse,
    errors: ["not_found", "conflict", "embedding_unavailable"],
  },
});
