import type { upsertSearchAttributes } from "@temporalio/workflow";

/** A key of upsertSearchAttributes' update pairs, of one type. */
type UpdatePair = Extract<Parameters<typeof upsertSearchAttributes>[0], readonly unknown[]>[number];
type Key<T extends "KEYWORD" | "KEYWORD_LIST"> = Extract<UpdatePair, { key: { type: T } }>["key"];

/**
 * The custom search attributes operators filter learning workflows by in the Temporal UI: the user
 * a run learns from, and the pending tool calls (questions to a person) it waits on. A worker
 * registers them at start (registerSearchAttributes in apps/worker); a workflow sets them only when
 * its activity says the worker could, since setting an unregistered one fails the workflow task.
 */
// Plain keys, as defineSearchAttributeKey of @temporalio/common makes them: workflow code imports only @temporalio/workflow.
export const USER_ID_ATTRIBUTE: Key<"KEYWORD"> = { name: "AlsUserId", type: "KEYWORD" };
export const PENDING_TOOL_CALLS_ATTRIBUTE: Key<"KEYWORD_LIST"> = { name: "AlsPendingToolCallIds", type: "KEYWORD_LIST" };
