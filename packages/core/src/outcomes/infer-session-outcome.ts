import { type Llm, renderPrompt } from "@als/ai";
import { OUTCOMES } from "@als/contract";
import {
  evaluations,
  learning,
  type OutcomeInferenceRecord,
  outcomeInferences,
  type Scope,
  type SessionOutcomeRecord,
  type Sql,
  sessionOutcomes,
} from "@als/db";
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { runSessionTimerStep, type SessionTimerOutcome, type SessionTimerWork } from "../durable/session-timer-step.ts";
import { judgeTranscript, type StageUsage } from "../evaluation/judge-session.ts";
import { type OutcomePayload, outcomeDigests } from "./outcome-digests.ts";

/** The stage llm_usage records the inference's tokens under. */
export const OUTCOME_INFERENCE_STAGE = "session_outcome_inference";
/** Longer than one judge call takes; a worker that died holding a session frees it after this. */
const INFERENCE_LEASE_SECONDS = 300;

const InferredOutcome = z.object({
  outcome: z.enum(OUTCOMES),
  reason: z.string().max(4_000),
});

/** The judge's inference over the session as it was read, before it is saved. */
interface Inference {
  userId: string;
  source: string;
  requestIds: string[];
  lastRequest: { request_id: string; created_at: number };
  outcome: z.infer<typeof InferredOutcome>;
  prompt: string;
  usage: StageUsage;
}

/** Reads the session and asks the judge how it ended (prompt session-outcome-inference). Null when nothing is left of it. */
async function inferOutcome(deps: CoreDeps & { llm: Llm }, scope: Scope, session: OutcomeInferenceRecord): Promise<Inference | null> {
  const requests = await evaluations.sessionRequestsInOrder(deps.db, scope, session.session_id);
  const turns = await evaluations.sessionInteractionsInOrder(deps.db, scope, session.session_id);
  const first = requests[0];
  const last = requests.at(-1);
  if (first === undefined || last === undefined || turns.length === 0) return null;
  const prompt = renderPrompt("session-outcome-inference", { transcript: judgeTranscript(turns) });
  const { value, usage } = await deps.llm.generateObject({
    system: prompt.system,
    user: prompt.user,
    schema: InferredOutcome,
    schemaName: OUTCOME_INFERENCE_STAGE,
  });
  return {
    userId: first.user_id,
    source: first.source,
    requestIds: requests.map((request) => request.request_id),
    lastRequest: last,
    outcome: value,
    prompt: prompt.id,
    usage: { ...usage, stage: OUTCOME_INFERENCE_STAGE },
  };
}

/**
 * Saves an inference as the session's placeholder outcome, unless its caller reported one
 * meanwhile (final: the inference is dropped, its tokens still recorded). A session inferred before
 * keeps its row's outcome_id and revision; what it says and the last request it covers move on.
 */
async function saveInference(tx: Sql, scope: Scope, session: OutcomeInferenceRecord, inference: Inference | null, now: number): Promise<void> {
  if (inference === null) return;
  await learning.recordLlmUsage(tx, scope, [{ ...inference.usage, userId: inference.userId, requestId: inference.lastRequest.request_id }], now);
  await sessionOutcomes.lockSessionOutcome(tx, scope, session.session_id);
  const existing = await sessionOutcomes.findActiveOutcome(tx, scope, session.session_id);
  if (existing !== null && !existing.is_inferred) return;
  const payload: OutcomePayload = {
    session_id: session.session_id,
    outcome: inference.outcome.outcome,
    occurred_at: inference.lastRequest.created_at,
    label: null,
    value: null,
    metadata: { inference_reason: inference.outcome.reason, inference_prompt: inference.prompt },
  };
  const row: SessionOutcomeRecord = {
    ...payload,
    outcome_id: existing?.outcome_id ?? crypto.randomUUID(),
    user_id: inference.userId,
    source: inference.source,
    is_inferred: true,
    outcome_revision: existing?.outcome_revision ?? 1,
    ...outcomeDigests(payload, inference.requestIds),
    trajectory_through_request_id: inference.lastRequest.request_id,
  };
  if (existing === null) await sessionOutcomes.insertOutcome(tx, scope, row, now);
  else await sessionOutcomes.refreshInferredOutcome(tx, scope, row);
}

const INFERENCE: SessionTimerWork<OutcomeInferenceRecord, Inference | null> = {
  table: "outcome_inferences",
  columns: outcomeInferences.OUTCOME_INFERENCE_COLUMNS,
  leaseSeconds: INFERENCE_LEASE_SECONDS,
  crashPoint: "outcome_inference.before_commit",
  failing: "outcome inference failed",
  perform: inferOutcome,
  save: saveInference,
};

/**
 * One idempotent step of a session's outcome inference: once the session is due (quiet for about
 * ten minutes, or the user replied after a playbook was used), the judge infers how it ended and
 * the placeholder outcome is saved or refreshed with the session's move to settled; a publish
 * meanwhile puts it back to waiting (see runSessionTimerStep for the fencing, retries and the wait
 * for a provider).
 */
export function runOutcomeInferenceStep(
  deps: CoreDeps,
  scope: Scope,
  sessionId: string,
  leaseToken: string = crypto.randomUUID(),
): Promise<SessionTimerOutcome> {
  return runSessionTimerStep(deps, INFERENCE, scope, sessionId, leaseToken);
}
