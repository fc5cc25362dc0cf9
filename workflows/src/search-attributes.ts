import { defineSearchAttributeKey, SearchAttributeType } from "@temporalio/common";

/**
 * The custom search attributes operators filter learning workflows by in the Temporal UI: the user
 * a run learns from, and the pending tool calls (questions to a person) it waits on. A worker
 * registers them at start (registerSearchAttributes in apps/worker); a workflow sets them only when
 * its activity says the worker could, since setting an unregistered one fails the workflow task.
 */
export const USER_ID_ATTRIBUTE = defineSearchAttributeKey("AlsUserId", SearchAttributeType.KEYWORD);
export const PENDING_TOOL_CALLS_ATTRIBUTE = defineSearchAttributeKey("AlsPendingToolCallIds", SearchAttributeType.KEYWORD_LIST);
