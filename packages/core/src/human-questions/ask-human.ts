import { createHash } from "node:crypto";
import { type RenderedPrompt, renderPrompt } from "@als/ai";
import { type NewToolCall, type PendingToolCallRecord, pendingToolCalls, type Scope } from "@als/db";
import { z } from "zod";

/** A question stays pending this long; then it expires and the runs waiting on it go on without it. */
export const QUESTION_TTL_SECONDS = 7 * 86_400;

/** What the model sends through the ask_human tool (a field of its structured reply). */
export const AskHuman = z
  .array(
    z.object({
      question_text: z.string().min(1),
      answer_format: z.string().nullable(),
      tags: z.array(z.string()),
      context: z.string().nullable(),
    }),
  )
  .max(3);
export type AskedQuestion = z.infer<typeof AskHuman>[number];

/** A question with what became of it, for the resumed call. */
export interface SettledQuestion {
  question_text: string;
  status: PendingToolCallRecord["status"];
  result: Record<string, unknown> | null;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const normalised = (question: string) =>
  question
    .toLowerCase()
    .replace(/\s+/g, " ")
    .replace(/[\s?.!]+$/, "")
    .trim();

/** The stored question of an asked one: its scope (project, user, the question normalised), its hashes and expiry. */
export function toolCallOf(scope: Scope, userId: string, asked: AskedQuestion, now: number): NewToolCall {
  const questionScope = { project_id: scope.projectId, user_id: userId, question: normalised(asked.question_text) };
  const scopeHash = sha256(JSON.stringify(questionScope));
  const args = asked.context ? { context: asked.context } : {};
  return {
    id: crypto.randomUUID(),
    user_id: userId,
    tool_name: "ask_human",
    scope: questionScope,
    scope_hash: scopeHash,
    dedup_key: sha256(JSON.stringify([scopeHash, asked.answer_format, args])),
    question_text: asked.question_text,
    answer_format: asked.answer_format,
    args,
    tags: asked.tags,
    created_at: now,
    expires_at: now + QUESTION_TTL_SECONDS,
  };
}

/** For each asked question, the still-valid answer a person gave to the same question (its scope) before, if any. */
export async function reusableAnswers(sql: Parameters<typeof pendingToolCalls.reusableAnswer>[0], scope: Scope, calls: readonly NewToolCall[], now: number) {
  return Promise.all(calls.map((call) => pendingToolCalls.reusableAnswer(sql, scope, call.scope_hash, now)));
}

/** The extraction prompt offering the ask_human tool (its instructions after the extraction's own). */
export function offeringAskHuman(prompt: RenderedPrompt): RenderedPrompt {
  const offer = renderPrompt("ask-human", { earlier: "", answers: "" });
  return { ...prompt, id: `${prompt.id}+${offer.id}`, system: `${prompt.system}\n\n${offer.system}` };
}

/** The extraction prompt of a resumed run: the window again, the model's earlier reply, and what became of each question. */
export function resumingWithAnswers(prompt: RenderedPrompt, earlier: unknown, questions: readonly SettledQuestion[]): RenderedPrompt {
  const answers = questions.map((question, index) => `${index + 1}. ${question.question_text}\n   ${answerText(question)}`).join("\n");
  const resume = renderPrompt("ask-human", { earlier: JSON.stringify(earlier), answers });
  return { ...prompt, id: `${prompt.id}+${resume.id}`, user: `${prompt.user}\n\n${resume.user}` };
}

function answerText(question: SettledQuestion): string {
  if (question.status === "resolved" && question.result?.not_applicable === true) return "No answer: the person said the question does not apply.";
  if (question.status === "resolved") {
    const answer = question.result?.answer;
    return `Answer: ${typeof answer === "string" ? answer : JSON.stringify(question.result)}`;
  }
  return `No answer: the question was ${question.status}; decide without it.`;
}
