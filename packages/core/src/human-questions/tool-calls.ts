import { AppError, type PendingToolCall } from "@als/contract";
import { type PendingToolCallRecord, type PendingToolCallStatus, pendingToolCalls, type Scope, type Settlement } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { isoTime, isoTimeOrNull } from "../iso-time.ts";

/** How long an answer holds, and is reused for the same question, when the person does not say (valid_for_seconds). */
export const DEFAULT_ANSWER_VALID_SECONDS = 30 * 86_400;

/** The wire form of a stored question (PendingToolCallResponse). */
export function toPendingToolCall(record: PendingToolCallRecord): PendingToolCall {
  return {
    id: record.id,
    org_id: record.org_id,
    scope: record.scope,
    scope_hash: record.scope_hash,
    tool_name: record.tool_name,
    dedup_key: record.dedup_key,
    status: record.status,
    question_text: record.question_text,
    user_id: record.user_id,
    args: record.args,
    tags: record.tags,
    answer_format: record.answer_format,
    result: record.result,
    superseded_by: record.superseded_by,
    created_at: isoTime(record.created_at),
    resolved_at: isoTimeOrNull(record.resolved_at),
    expires_at: isoTime(record.expires_at),
    cache_until: isoTimeOrNull(record.cache_until),
    valid_until: isoTimeOrNull(record.valid_until),
  };
}

/** Questions past their expiry become `expired` before anyone reads them, and the runs that waited on them go on. */
async function expireDue(deps: CoreDeps, scope: Scope): Promise<void> {
  for (const waiting of await pendingToolCalls.expireDueToolCalls(deps.db, scope, deps.now()))
    await deps.orchestrator?.schedule("learning", scope, waiting.user_id);
}

export async function listToolCalls(deps: CoreDeps, scope: Scope, input: { status?: PendingToolCallStatus | undefined; limit: number }) {
  await expireDue(deps, scope);
  return { pending_tool_calls: (await pendingToolCalls.listToolCalls(deps.db, scope, input.status, input.limit)).map(toPendingToolCall) };
}

export async function getToolCall(deps: CoreDeps, scope: Scope, id: string): Promise<PendingToolCall> {
  await expireDue(deps, scope);
  const found = await pendingToolCalls.findToolCall(deps.db, scope, id);
  if (!found) throw AppError.notFound(`pending tool call '${id}'`);
  return toPendingToolCall(found);
}

/**
 * Moves a question from `settlement.from` to `settlement.to` and wakes the learning of the users
 * whose runs wait on it. 404 when the question is unknown (or another project's), 409 naming its
 * status when it is not in `from`.
 */
async function settle(deps: CoreDeps, scope: Scope, id: string, settlement: Settlement, action: string): Promise<PendingToolCall> {
  await expireDue(deps, scope);
  const { updated, waiting } = await deps.db.transaction(async (tx) => ({
    updated: await pendingToolCalls.settleToolCall(tx, scope, id, settlement),
    waiting: await pendingToolCalls.usersWaitingOn(tx, scope, id),
  }));
  if (!updated) {
    const found = await pendingToolCalls.findToolCall(deps.db, scope, id);
    if (!found) throw AppError.notFound(`pending tool call '${id}'`);
    throw new AppError("conflict", `pending tool call '${id}' is ${found.status}: only a ${settlement.from} one can be ${action}`);
  }
  for (const userId of new Set([...waiting, ...(updated.user_id ? [updated.user_id] : [])])) await deps.orchestrator?.schedule("learning", scope, userId);
  return toPendingToolCall(updated);
}

const validUntil = (deps: CoreDeps, validForSeconds: number | undefined) => deps.now() + (validForSeconds ?? DEFAULT_ANSWER_VALID_SECONDS);

export function resolveToolCall(
  deps: CoreDeps,
  scope: Scope,
  input: { pending_tool_call_id: string; answer?: string | undefined; result?: Record<string, unknown> | undefined; valid_for_seconds?: number | undefined },
): Promise<PendingToolCall> {
  const result = input.answer !== undefined ? { answer: input.answer } : input.result!;
  return settle(
    deps,
    scope,
    input.pending_tool_call_id,
    { from: "pending", to: "resolved", result, now: deps.now(), validUntil: validUntil(deps, input.valid_for_seconds) },
    "resolved",
  );
}

export function markNotApplicable(deps: CoreDeps, scope: Scope, input: { pending_tool_call_id: string; valid_for_seconds?: number | undefined }) {
  return settle(
    deps,
    scope,
    input.pending_tool_call_id,
    { from: "pending", to: "resolved", result: { not_applicable: true }, now: deps.now(), validUntil: validUntil(deps, input.valid_for_seconds) },
    "marked not applicable",
  );
}

export function updateAnswer(deps: CoreDeps, scope: Scope, input: { pending_tool_call_id: string; answer: string; valid_for_seconds?: number | undefined }) {
  return settle(
    deps,
    scope,
    input.pending_tool_call_id,
    { from: "resolved", to: "resolved", result: { answer: input.answer }, now: deps.now(), validUntil: validUntil(deps, input.valid_for_seconds) },
    "given a new answer",
  );
}

export function cancelToolCall(deps: CoreDeps, scope: Scope, id: string) {
  return settle(deps, scope, id, { from: "pending", to: "cancelled", now: deps.now() }, "cancelled");
}
