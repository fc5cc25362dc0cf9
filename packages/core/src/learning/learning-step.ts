import { type Llm, LlmStallError } from "@als/ai";
import {
  type CursorRecord,
  ErasureInProgressError,
  extractionRuns,
  heldWindows,
  interactions,
  learning,
  requests,
  type Scope,
  type StallRecord,
} from "@als/db";
import { type ProjectConfig, readProjectConfigNow } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { raiseQuestions, resumableRun } from "../human-questions/window-questions.ts";
import { embedPendingInteractions } from "../interactions/embed-interactions.ts";
import type { ExtractorSpec } from "./extractor.ts";
import { INPUT_BUDGET_CONFIGURATION_ERROR, InputBudgetConfigurationError, InputBudgetExceeded } from "./input-budget.ts";
import { type HumanQuestions, type PlannedWindow, planWindow } from "./plan-window.ts";
import { playbookExtractor } from "./playbook-extractor.ts";
import { profileExtractor } from "./profile-extractor.ts";

// biome-ignore lint/suspicious/noExplicitAny: each kind's spec has its own candidate type, and a spec only ever gets back what it produced.
export const EXTRACTOR_SPECS: Record<CursorRecord["extractor"], ExtractorSpec<any>> = { profile: profileExtractor, playbook: playbookExtractor };

/** Longer than any window's extraction takes; a worker that died holding the lease frees it after this. */
export const LEARNING_LEASE_SECONDS = 300;
export const DEFAULT_SESSION_INACTIVITY_SECONDS = 6 * 3600;
const RETRY_BASE_SECONDS = 5;
const RETRY_CAP_SECONDS = 300;

/** How the failure of a window that a stall stopped begins, as learning_status shows it. */
const STALLED = "learning is stalled";

export const NO_PROVIDER_REASON =
  "no LLM provider is configured: set LLM_PROVIDER (openai, anthropic or openai-compatible), LLM_MODEL and LLM_API_KEY (and LLM_BASE_URL for a compatible server), then restart";

/**
 * What a learning step leaves for its orchestrator to do:
 * - `again`: a window committed and more may be due; call the step again;
 * - `sleep`: nothing is due before `until` (a short window's inactivity deadline, a retry's backoff,
 *   the expiry of the questions `waitingOn` that a window asked a person: answering one wakes it);
 * - `idle`: nothing to do until the user publishes again (or a stall is lifted);
 * - `busy`: another step holds the user's lease; try again shortly.
 */
export type LearningStepOutcome = { next: "again" } | { next: "sleep"; until: number; waitingOn?: string[] } | { next: "idle" } | { next: "busy" };

/**
 * One idempotent step of learning from a user's interactions: under the user's lease, it embeds the
 * interactions published since the last step, then, for each extractor whose cursor has a window
 * due, extracts that one window and commits its learnings together with the cursor's move. The commit is fenced by the lease and by the cursor's position,
 * so a step that lost its lease (its worker stalled past the lease, another took over) saves
 * nothing, and a window interrupted before its commit is extracted again from the start: every
 * window is committed exactly once.
 */
export async function runLearningStep(deps: CoreDeps, scope: Scope, userId: string, leaseToken: string = crypto.randomUUID()): Promise<LearningStepOutcome> {
  if (!(await learning.acquireUserLease(deps.db, scope, userId, leaseToken, deps.now(), LEARNING_LEASE_SECONDS))) return { next: "busy" };
  try {
    await embedPendingInteractions(deps, scope, userId);
    const config = await readProjectConfigNow(deps, scope);
    const stall = await learning.readStall(deps.db, scope);
    const outcomes: LearningStepOutcome[] = [];
    for (const cursor of await learning.readCursors(deps.db, scope, userId)) {
      outcomes.push(await advanceCursor(deps, scope, { userId, cursor, config, stall, leaseToken }));
    }
    return combine(outcomes);
  } catch (error) {
    // The user is being erased: the window's commit was refused. Once the erasure is done there is
    // nothing of theirs left to learn from; until then, try again later.
    if (error instanceof ErasureInProgressError) return { next: "busy" };
    throw error;
  } finally {
    await learning.releaseUserLease(deps.db, scope, userId, leaseToken);
  }
}

interface CursorContext {
  userId: string;
  cursor: CursorRecord;
  config: ProjectConfig;
  stall: StallRecord | undefined;
  leaseToken: string;
}

async function advanceCursor(deps: CoreDeps, scope: Scope, context: CursorContext): Promise<LearningStepOutcome> {
  const { userId, cursor, config, stall } = context;
  const now = deps.now();
  const pending = await learning.pendingSummary(deps.db, scope, userId, cursor.covered_seq);
  if (pending.count === 0 || pending.max_seq === null) return { next: "idle" };
  const streamEnd = pending.max_seq;
  // A held window waits for an operator (see heldWindows.recoverHeldWindow), and the windows after it wait behind it.
  if (cursor.held_through_seq !== null) return { next: "idle" };
  if (cursor.retry_at !== null && cursor.retry_at > now) return { next: "sleep", until: cursor.retry_at };
  const quietSince = pending.last_published_at ?? now;
  const inactivity = deps.learning?.sessionInactivitySeconds ?? DEFAULT_SESSION_INACTIVITY_SECONDS;
  const due = pending.count >= config.stride_size || pending.forced || now - quietSince >= inactivity;
  if (!due) return { next: "sleep", until: quietSince + inactivity };

  const fail = (message: string, final: boolean, retryAt: number | null = null, stalled = false) =>
    learning.recordCursorFailure(deps.db, scope, { userId, extractor: cursor.extractor, message, final, stalled, retryAt, throughSeq: streamEnd });
  // Final until a publish overrides the stall; the commit that clears it resumes the users so stopped.
  const failStalled = (reason: string) => fail(`${STALLED}: ${reason}`, true, null, true);
  if (stall && !pending.overrides_stall) {
    await failStalled(
      `the LLM provider refused our ${stall.reason === "auth" ? "credentials" : "billing"} (${stall.error_message}); fix it, then publish with override_learning_stall`,
    );
    return { next: "idle" };
  }
  if (!deps.llm) {
    await fail(NO_PROVIDER_REASON, true);
    return { next: "idle" };
  }

  // A window that asked a person waits for the answers (or their expiry), then resumes from where it asked.
  const run = await resumableRun(deps, scope, userId, cursor);
  if (run?.waitingOn) return { next: "sleep", until: run.waitingOn.until, waitingOn: run.waitingOn.ids };
  const end = run?.throughSeq ?? (await learning.windowEnd(deps.db, scope, userId, cursor.covered_seq, config.window_size))!;
  const window = await interactions.windowInteractions(deps.db, scope, userId, end, config.window_size);
  const spec = EXTRACTOR_SPECS[cursor.extractor];
  const humanQuestions: HumanQuestions | undefined = run?.resume
    ? { resume: run.resume }
    : config.pending_tool_call_config.enabled
      ? { offer: true }
      : undefined;
  let planned: PlannedWindow<unknown>;
  try {
    const outcome = await planWindow({ ...deps, llm: deps.llm as Llm }, scope, spec, config, userId, window, {
      ...(cursor.budget_override_tokens !== null && { budgetTokens: cursor.budget_override_tokens }),
      humanQuestions,
    });
    if ("questions" in outcome) {
      const asked = await raiseQuestions(deps, scope, { userId, cursor, throughSeq: end, requestId: window.at(-1)!.request_id, asking: outcome });
      // Every question answered before: the run resumes at once, with those answers.
      return asked.ids.length > 0 ? { next: "sleep", until: asked.until, waitingOn: asked.ids } : { next: "again" };
    }
    planned = outcome;
  } catch (error) {
    if (error instanceof InputBudgetExceeded) {
      const held = { userId, extractor: cursor.extractor, throughSeq: end, inputTokens: error.inputTokens, budgetTokens: error.budgetTokens };
      await heldWindows.holdWindow(deps.db, scope, held, now);
      return { next: "idle" };
    }
    if (error instanceof InputBudgetConfigurationError) {
      // Failed, and retried with capped backoff: fixing the configuration heals it without anyone's help.
      const retryAt = now + Math.min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** cursor.attempts);
      await fail(INPUT_BUDGET_CONFIGURATION_ERROR, true, retryAt);
      return { next: "sleep", until: retryAt };
    }
    if (error instanceof LlmStallError) {
      await learning.recordStall(deps.db, scope, { reason: error.kind, errorMessage: error.message }, now);
      await failStalled(error.message);
      return { next: "idle" };
    }
    // Transient (rate limits, outages, a reply that never matched the schema): back off and retry.
    const retryAt = now + Math.min(RETRY_CAP_SECONDS, RETRY_BASE_SECONDS * 2 ** cursor.attempts);
    await fail(`extraction failed, retrying: ${error instanceof Error ? error.message : String(error)}`, false, retryAt);
    return { next: "sleep", until: retryAt };
  }

  const request = (await requests.findRequest(deps.db, scope, window.at(-1)!.request_id))!;
  // The step's stall was read before its first window: only the commit that clears it resumes the users it paused.
  let clearedStall = false;
  const committed = await deps.db.transaction(async (tx) => {
    const moved = await learning.advanceCursor(tx, scope, {
      userId,
      extractor: cursor.extractor,
      fromSeq: cursor.covered_seq,
      toSeq: end,
      leaseToken: context.leaseToken,
    });
    if (!moved) return false;
    // The run that asked ends with its window's commit: exactly once, whichever process resumed it.
    if (run?.runId && !(await extractionRuns.finishRun(tx, scope, run.runId, now))) throw new Error(`extraction run ${run.runId} was finished meanwhile`);
    await spec.commit(tx, deps, scope, planned.plan, { userId, request, now });
    await learning.recordLlmUsage(
      tx,
      scope,
      planned.usage.map((u) => ({ ...u, userId, requestId: request.request_id })),
      now,
    );
    // A run that the stall override let through shows the provider works again.
    clearedStall = stall !== undefined && (await learning.clearStall(tx, scope));
    return true;
  });
  if (!committed) return { next: "busy" };
  if (clearedStall) await resumePausedUsers(deps, scope, userId);
  return { next: "again" };
}

/** The stall has cleared: the learning it paused for other users goes on without waiting for their next publish. */
async function resumePausedUsers(deps: CoreDeps, scope: Scope, clearedBy: string): Promise<void> {
  for (const userId of await learning.usersStalled(deps.db, scope)) {
    if (userId !== clearedBy) await deps.orchestrator?.schedule("learning", scope, userId);
  }
}

/** The most urgent of the extractors' outcomes. */
function combine(outcomes: LearningStepOutcome[]): LearningStepOutcome {
  if (outcomes.some((o) => o.next === "again")) return { next: "again" };
  if (outcomes.some((o) => o.next === "busy")) return { next: "busy" };
  const sleeps = outcomes.flatMap((o) => (o.next === "sleep" ? [o] : []));
  if (sleeps.length === 0) return { next: "idle" };
  const waitingOn = sleeps.flatMap((o) => o.waitingOn ?? []);
  return { next: "sleep", until: Math.min(...sleeps.map((o) => o.until)), ...(waitingOn.length > 0 && { waitingOn }) };
}
