import type { AgentPlaybook } from "@als/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { useMember } from "../session.tsx";
import { PlaybookText, Results } from "./learnings.tsx";

/** Agent playbooks waiting for a person: approve, reject, or edit the text before approving. */
export function ApprovalsPage() {
  const { client, session } = useMember();
  const pending = useQuery({
    queryKey: ["approvals", session.projectId],
    queryFn: () => client.agentPlaybooks.get({ playbook_status_filter: ["PENDING"], limit: 100 }),
  });
  return (
    <section aria-labelledby="approvals-title">
      <h1 id="approvals-title">Approval queue</h1>
      <p className="muted">Agents retrieve an agent playbook once it is approved.</p>
      <Results error={pending.error} loading={pending.isPending} count={pending.data?.agent_playbooks.length}>
        {pending.data?.agent_playbooks.map((playbook) => (
          <PendingPlaybook key={playbook.agent_playbook_id} playbook={playbook} />
        ))}
      </Results>
    </section>
  );
}

function PendingPlaybook({ playbook }: { playbook: AgentPlaybook }) {
  const { client } = useMember();
  const queries = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState({
    playbook_name: playbook.playbook_name,
    trigger: playbook.trigger,
    content: playbook.content,
    rationale: playbook.rationale,
  });
  const done = () => queries.invalidateQueries({ queryKey: ["approvals"] });
  const decide = useMutation({
    mutationFn: (playbook_status: "APPROVED" | "REJECTED") =>
      client.agentPlaybooks.updateStatus({ agent_playbook_id: playbook.agent_playbook_id, playbook_status }),
    onSuccess: done,
  });
  const edit = useMutation({
    mutationFn: () => client.agentPlaybooks.update({ agent_playbook_id: playbook.agent_playbook_id, ...draft }),
    onSuccess: () => {
      setEditing(false);
      return done();
    },
  });
  const save = (event: FormEvent) => {
    event.preventDefault();
    edit.mutate();
  };
  const heading = `playbook-${playbook.agent_playbook_id}`;
  return (
    <article className="card" aria-labelledby={heading}>
      <h2 id={heading} className="card-title">
        #{playbook.agent_playbook_id} {playbook.playbook_name || "Unnamed playbook"}{" "}
        <span className="muted">
          (agent {playbook.agent_version}, from {playbook.source_user_playbook_ids.length} user playbook
          {playbook.source_user_playbook_ids.length === 1 ? "" : "s"})
        </span>
      </h2>
      {editing ? (
        <form onSubmit={save} className="stack">
          {(["playbook_name", "trigger", "content", "rationale"] as const).map((field) => (
            <label key={field}>
              {{ playbook_name: "Name", trigger: "When", content: "Do", rationale: "Why" }[field]}
              <textarea
                rows={field === "playbook_name" ? 1 : 3}
                value={draft[field]}
                onChange={(event) => setDraft({ ...draft, [field]: event.target.value })}
              />
            </label>
          ))}
          <div className="actions">
            <button type="submit" className="primary" disabled={edit.isPending}>
              Save
            </button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel editing
            </button>
          </div>
        </form>
      ) : (
        <PlaybookText playbook={playbook} />
      )}
      {!editing && (
        <div className="actions">
          <button type="button" className="primary" disabled={decide.isPending} onClick={() => decide.mutate("APPROVED")}>
            Approve
          </button>
          <button type="button" className="danger" disabled={decide.isPending} onClick={() => decide.mutate("REJECTED")}>
            Reject
          </button>
          <button type="button" onClick={() => setEditing(true)}>
            Edit
          </button>
        </div>
      )}
      <ErrorNote error={decide.error ?? edit.error} />
    </article>
  );
}
