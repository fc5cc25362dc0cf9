import type { Client } from "@als/client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { ErrorNote } from "./error-note.tsx";
import { formatTime } from "./format.ts";
import { useMember } from "./session.tsx";

type HeldWindow = Awaited<ReturnType<Client["learning"]["listHeldWindows"]>>["held_windows"][number];

/**
 * Learning windows held because they do not fit the input budget, with the recoveries the service
 * offers: skip the window, or retry it with a larger budget. Later windows of the same user and
 * extractor wait behind a held one, so each recovery is confirmed before it runs.
 */
export function HeldWindows({ userId }: { userId: string }) {
  const { client, session } = useMember();
  const held = useQuery({
    queryKey: ["held-windows", session.projectId, userId],
    queryFn: () => client.learning.listHeldWindows(userId ? { user_id: userId } : {}),
    // Windows are held and recovered behind the page's back: each visit reads them afresh.
    refetchOnMount: "always",
  });
  if (held.error) return <ErrorNote error={held.error} />;
  if (!held.data || held.data.held_windows.length === 0) return null;
  return (
    <section className="card warning-card" aria-labelledby="held-title">
      <h2 id="held-title">Held windows</h2>
      <p className="muted">These windows do not fit the learning input budget even reduced; the user's later windows of the same extractor wait behind them.</p>
      {held.data.held_windows.map((window) => (
        <HeldWindowView key={`${window.user_id}\u0000${window.extractor}`} window={window} />
      ))}
    </section>
  );
}

type Pending = { action: "skip" } | { action: "retry"; budget: number };

function HeldWindowView({ window }: { window: HeldWindow }) {
  const { client } = useMember();
  const queries = useQueryClient();
  const [budget, setBudget] = useState(window.input_tokens);
  const [pending, setPending] = useState<Pending | null>(null);
  const recover = useMutation({
    mutationFn: (chosen: Pending) =>
      client.learning.recoverHeldWindow({
        user_id: window.user_id,
        extractor: window.extractor,
        ...(chosen.action === "skip" ? { action: "skip" } : { action: "retry", budget_tokens: chosen.budget }),
      }),
    onSuccess: () => {
      setPending(null);
      // The window's requests and the ones waiting behind it move on: their statuses are read again.
      return Promise.all([queries.invalidateQueries({ queryKey: ["held-windows"] }), queries.invalidateQueries({ queryKey: ["learning-status"] })]);
    },
  });
  // The confirmation replaces the button that asked for it: the focus moves to it, for the keyboard.
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (pending) confirm.current?.focus();
  }, [pending]);
  const name = `the ${window.extractor} window of ${window.user_id}`;
  const heading = `held-${window.user_id}-${window.extractor}`;
  return (
    <article className="held" aria-labelledby={heading}>
      <h3 id={heading} className="card-title">
        User {window.user_id}, {window.extractor} extractor
      </h3>
      <p>
        Turns {window.from_seq}–{window.through_seq} need {window.input_tokens} input tokens; the budget was {window.budget_tokens}. Held{" "}
        {formatTime(window.held_at)}. Requests: {window.request_ids.join(", ")}.
      </p>
      {pending ? (
        <div className="actions">
          <button ref={confirm} type="button" className="danger" disabled={recover.isPending} onClick={() => recover.mutate(pending)}>
            {pending.action === "skip" ? `Confirm: skip ${name}` : `Confirm: retry ${name} with ${pending.budget} tokens`}
          </button>
          <button type="button" onClick={() => setPending(null)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="actions">
          <label className="inline">
            Budget for a retry (tokens)
            <input type="number" min={window.budget_tokens + 1} value={budget} onChange={(event) => setBudget(Number(event.target.value))} />
          </label>
          <button type="button" onClick={() => setPending({ action: "retry", budget })}>
            Retry with this budget
          </button>
          <button type="button" className="danger" onClick={() => setPending({ action: "skip" })}>
            Skip (never learn from it)
          </button>
        </div>
      )}
      <ErrorNote error={recover.error} />
    </article>
  );
}
