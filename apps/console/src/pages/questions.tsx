import type { PendingToolCall } from "@als/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { useMember } from "../session.tsx";
import { Results } from "./learnings.tsx";

const STATUSES = ["pending", "resolved", "cancelled", "expired", "superseded"] as const;

/** Questions the learning asked a person: answer one, say it does not apply, or cancel it. */
export function QuestionsPage() {
  const { client, session } = useMember();
  const [status, setStatus] = useState<(typeof STATUSES)[number]>("pending");
  const questions = useQuery({
    queryKey: ["questions", session.projectId, status],
    queryFn: () => client.humanQuestions.list({ status, limit: 100 }),
  });
  return (
    <section aria-labelledby="questions-title">
      <h1 id="questions-title">Questions</h1>
      <label className="inline">
        Show
        <select value={status} onChange={(event) => setStatus(event.target.value as typeof status)}>
          {STATUSES.map((each) => (
            <option key={each} value={each}>
              {each}
            </option>
          ))}
        </select>
      </label>
      <Results error={questions.error} loading={questions.isPending} count={questions.data?.pending_tool_calls.length}>
        {questions.data?.pending_tool_calls.map((question) => (
          <Question key={question.id} question={question} />
        ))}
      </Results>
    </section>
  );
}

/** How the question was settled: the answer, "not applicable", or the structured result an agent gave. */
function describeResult(result: Record<string, unknown>): string {
  if (result.not_applicable === true) return "Marked not applicable.";
  if (typeof result.answer === "string") return `Answered: ${result.answer}`;
  return `Result: ${JSON.stringify(result)}`;
}

function Question({ question }: { question: PendingToolCall }) {
  const { client } = useMember();
  const queries = useQueryClient();
  const [answer, setAnswer] = useState("");
  const done = () => queries.invalidateQueries({ queryKey: ["questions"] });
  const id = { pending_tool_call_id: question.id };
  const resolve = useMutation({ mutationFn: () => client.humanQuestions.resolve({ ...id, answer }), onSuccess: done });
  const notApplicable = useMutation({ mutationFn: () => client.humanQuestions.notApplicable(id), onSuccess: done });
  const cancel = useMutation({ mutationFn: () => client.humanQuestions.cancel(id), onSuccess: done });
  const busy = resolve.isPending || notApplicable.isPending || cancel.isPending;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    resolve.mutate();
  };
  const answerId = `answer-${question.id}`;
  return (
    <article className="card">
      <h2 className="card-title">{question.question_text}</h2>
      <p className="muted">
        {question.user_id ? `About user ${question.user_id}` : "About no one user"}
        {question.answer_format ? ` · answer as ${question.answer_format}` : ""} · asked {new Date(question.created_at).toLocaleString()}
        {question.tags.length > 0 ? ` · ${question.tags.join(", ")}` : ""}
      </p>
      {question.result && <p>{describeResult(question.result)}</p>}
      {question.status === "pending" && (
        <form onSubmit={submit} className="stack">
          <label htmlFor={answerId}>Your answer</label>
          <input id={answerId} required value={answer} onChange={(event) => setAnswer(event.target.value)} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || answer.trim() === ""}>
              Answer
            </button>
            <button type="button" disabled={busy} onClick={() => notApplicable.mutate()}>
              Not applicable
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => cancel.mutate()}>
              Cancel question
            </button>
          </div>
        </form>
      )}
      <ErrorNote error={resolve.error ?? notApplicable.error ?? cancel.error} />
    </article>
  );
}
