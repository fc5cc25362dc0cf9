import type { AgentPlaybook, UserPlaybook } from "@als/contract";
import type { AgentPlaybookRecord, UserPlaybookRecord } from "@als/db";
import type { z } from "zod";

/**
 * The wire form of a stored user playbook (an allow-list: no embedding, no internal columns), with
 * its statuses as stored: the output schema encodes them for the wire (StatusOnWire).
 */
export function toUserPlaybook(record: UserPlaybookRecord): z.input<typeof UserPlaybook> {
  return {
    user_playbook_id: record.user_playbook_id,
    user_id: record.user_id,
    request_id: record.request_id ?? "",
    agent_version: record.agent_version,
    playbook_name: record.playbook_name,
    trigger: record.trigger,
    content: record.content,
    rationale: record.rationale,
    structured_data: { trigger: record.trigger, rationale: record.rationale },
    tags: record.tags,
    status: record.status,
    source: record.source,
    created_at: record.created_at,
    last_modified_timestamp: record.last_modified_timestamp,
  };
}

/** The wire form of a stored agent playbook, with the ids of the user playbooks it was made from. */
export function toAgentPlaybook(record: AgentPlaybookRecord): z.input<typeof AgentPlaybook> {
  return {
    agent_playbook_id: record.agent_playbook_id,
    agent_version: record.agent_version,
    playbook_name: record.playbook_name,
    trigger: record.trigger,
    content: record.content,
    rationale: record.rationale,
    structured_data: { trigger: record.trigger, rationale: record.rationale },
    playbook_status: record.playbook_status,
    playbook_metadata: record.playbook_metadata,
    tags: record.tags,
    status: record.status,
    source_user_playbook_ids: record.source_user_playbook_ids,
    created_at: record.created_at,
    last_modified_timestamp: record.last_modified_timestamp,
  };
}
