import { type CursorRecord, extractionRuns, learning, pendingToolCalls, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import type { AskingWindow } from "../learning/plan-window.ts";
import { reusableAnswers, type SettledQuestion, toolCallOf } from "./ask-human.ts";

/** A cursor's run that asked a person: still waiting on some questions, or ready to resume with what became of them. */
export interface ResumableRun {
  runId: string;
  /** The window's last interaction, as when it asked. */
  throughSeq: number;
  /** Questions still pending, and the earliest expiry among them (when the run goes on without them). */
  waitingOn?: { until: number; ids: string[] };
  resume?: { earlier: unknown; questions: SettledQuestion[] };
}

interface RunMessages {
  reply: unknown;
  /** Questions answered before (a still-valid answer to the same question), not asked again. */
  reused: SettledQuestion[];
}

/**
 * The cursor's waiting run, if it has one, with its questions' state: questions past their expiry
 * become expired first. A run whose window the cursor has moved past (an operator skipped it) is
 * finished without resuming.
 */
export async function resumableRun(deps: CoreDeps, scope: Scope, userId: string, cursor: CursorRecord): Promise<ResumableRun | undefined> {
  let waiting = await extractionRuns.waitingRun(deps.db, scope, userId, cursor.extractor);
  if (!waiting) return undefined;
  const { run } = waiting;
  if (run.from_seq !== cursor.covered_seq) {
    await extractionRuns.finishRun(deps.db, scope, run.run_id, deps.now());
    return undefined;
  }
  const now = deps.now();
  if (waiting.questions.some((question) => question.status === "pending" && question.expires_at <= now)) {
    await pendingToolCalls.expireDueToolCalls(deps.db, scope, now);
    waiting = (await extractionRuns.waitingRun(deps.db, scope, userId, cursor.extractor))!;
  }
  const open = waiting.questions.filter((question) => question.status === "pending");
  const base = { runId: run.run_id, throughSeq: run.through_seq };
  if (open.length > 0) return { ...base, waitingOn: { until: Math.min(...open.map((question) => question.expires_at)), ids: open.map((q) => q.id) } };
  const messages = run.messages as unknown as RunMessages;
  // A superseded question's runs wait on the one that replaced it, which is among these.
  const settled = waiting.questions
    .filter((question) => question.status !== "superseded")
    .map(({ question_text, status, result }) => ({ question_text, status, result }));
  return { ...base, resume: { earlier: messages.reply, questions: [...messages.reused, ...settled] } };
}

/**
 * Persists a window that asked: the run (its messages: the model's reply with the questions and any
 * partial output) and its questions, each joined to an identical pending one or superseding older
 * pending ones of its scope, in one transaction with the tokens spent. A question a person already
 * answered (the same scope, the answer still valid) is not asked again: its answer goes into the
 * run. Returns the questions asked and the earliest expiry among them (none asked: the run can resume now).
 */
export async function raiseQuestions(
  deps: CoreDeps,
  scope: Scope,
  window: { userId: string; cursor: CursorRecord; throughSeq: number; requestId: string; asking: AskingWindow },
): Promise<{ until: number; ids: string[] }> {
  const now = deps.now();
  const calls = window.asking.questions.map((asked) => toolCallOf(scope, window.userId, asked, now));
  const answered = await reusableAnswers(deps.db, scope, calls, now);
  const reused: SettledQuestion[] = answered.flatMap((found, index) =>
    found ? [{ question_text: calls[index]!.question_text, status: found.status, result: found.result }] : [],
  );
  const runId = crypto.randomUUID();
  const ids = await deps.db.transaction(async (tx) => {
    const messages: RunMessages & AskingWindow["messages"] = { ...window.asking.messages, reused };
    await extractionRuns.createRun(tx, scope, {
      run_id: runId,
      user_id: window.userId,
      extractor: window.cursor.extractor,
      from_seq: window.cursor.covered_seq,
      through_seq: window.throughSeq,
      messages: messages as unknown as Record<string, unknown>,
      created_at: now,
    });
    const raised: string[] = [];
    for (const [index, call] of calls.entries()) if (!answered[index]) raised.push(await pendingToolCalls.raiseToolCall(tx, scope, call, runId));
    await learning.recordLlmUsage(
      tx,
      scope,
      window.asking.usage.map((u) => ({ ...u, userId: window.userId, requestId: window.requestId })),
      now,
    );
    return raised;
  });
  return { until: ids.length > 0 ? Math.min(...calls.filter((_, index) => !answered[index]).map((call) => call.expires_at)) : now, ids };
}
