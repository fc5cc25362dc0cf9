import type { Interaction, Request } from "@als/contract";
import type { InteractionRecord, RequestRecord } from "@als/db";
import type { z } from "zod";

/** The wire form of a stored interaction (an allow-list: no embedding, no stream position). */
export function toInteraction(record: InteractionRecord): Interaction {
  return {
    interaction_id: record.interaction_id,
    user_id: record.user_id,
    request_id: record.request_id,
    session_id: record.session_id,
    created_at: record.created_at,
    role: record.role as Interaction["role"],
    content: record.content,
    shadow_content: record.shadow_content,
    expert_content: record.expert_content,
    image_encoding: record.image_encoding,
    user_action: record.user_action as Interaction["user_action"],
    user_action_description: record.user_action_description ?? "",
    interacted_image_url: record.interacted_image_url ?? "",
    tools_used: record.tools_used,
    citations: record.citations as Interaction["citations"],
    retrieved_learnings: record.retrieved_learnings as Interaction["retrieved_learnings"],
  };
}

export function toRequest(record: RequestRecord): z.infer<typeof Request> {
  return {
    request_id: record.request_id,
    user_id: record.user_id,
    session_id: record.session_id,
    source: record.source,
    agent_version: record.agent_version,
    evaluation_only: record.evaluation_only,
    created_at: record.created_at,
  };
}
