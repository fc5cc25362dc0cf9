import type { GetAgentPlaybooksRequest, GetUserPlaybooksRequest, PlaybookStatus, Status } from "@als/contract";
import { type AgentPlaybookRecord, agentPlaybooks, type PlaybookFilters, type Scope, type UserPlaybookRecord, userPlaybooks } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/** Unfiltered reads of agent playbooks return what a human approved. */
export const DEFAULT_APPROVAL_STATUSES: PlaybookStatus[] = ["APPROVED"];

/** The filters every playbook read and search shares; an unset or empty one is off. */
export function playbookFilters(request: {
  playbook_name?: string | undefined;
  agent_version?: string | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
  status_filter?: Status[] | undefined;
  tags?: string[] | undefined;
}): PlaybookFilters {
  return {
    ...(request.playbook_name && { playbookName: request.playbook_name }),
    ...(request.agent_version && { agentVersion: request.agent_version }),
    ...(request.start_time !== undefined && { start: request.start_time }),
    ...(request.end_time !== undefined && { end: request.end_time }),
    ...(request.status_filter && { statuses: request.status_filter }),
    ...(request.tags?.length && { tags: request.tags }),
  };
}

/** User playbooks of any status unless filtered, newest first; `query` is a case-insensitive text filter. */
export function getUserPlaybooks(deps: CoreDeps, scope: Scope, request: GetUserPlaybooksRequest): Promise<UserPlaybookRecord[]> {
  return userPlaybooks.listUserPlaybooks(
    deps.db,
    scope,
    {
      ...playbookFilters(request),
      ...(request.user_playbook_id !== undefined && { userPlaybookIds: [request.user_playbook_id] }),
      ...(request.user_id && { userId: request.user_id }),
      ...(request.request_id && { requestId: request.request_id }),
      ...(request.query && { textContains: request.query }),
    },
    request.limit,
  );
}

/** Agent playbooks, APPROVED ones unless playbook_status_filter says otherwise, newest first. */
export function getAgentPlaybooks(deps: CoreDeps, scope: Scope, request: GetAgentPlaybooksRequest): Promise<AgentPlaybookRecord[]> {
  return agentPlaybooks.listAgentPlaybooks(
    deps.db,
    scope,
    {
      ...playbookFilters(request),
      ...(request.agent_playbook_id !== undefined && { agentPlaybookIds: [request.agent_playbook_id] }),
      ...(request.query && { textContains: request.query }),
      playbookStatuses: request.playbook_status_filter ?? DEFAULT_APPROVAL_STATUSES,
    },
    request.limit,
  );
}
