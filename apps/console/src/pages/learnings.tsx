import type { AgentPlaybook } from "@als/contract";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { formatTime } from "../format.ts";
import { routeParams } from "../route.ts";
import { useMember } from "../session.tsx";

type Kind = "profiles" | "user_playbooks" | "agent_playbooks";
const KINDS: { id: Kind; title: string }[] = [
  { id: "profiles", title: "Profiles" },
  { id: "user_playbooks", title: "User playbooks" },
  { id: "agent_playbooks", title: "Agent playbooks" },
];

interface Filters {
  query: string;
  userId: string;
  agentVersion: string;
  /** Comma-separated; a playbook matches when it has any of them. */
  tags: string;
  status: "" | "CURRENT" | "PENDING" | "ARCHIVED";
  playbookStatus: "" | "PENDING" | "APPROVED" | "REJECTED";
}
const NO_FILTERS: Filters = { query: "", userId: "", agentVersion: "", tags: "", status: "", playbookStatus: "" };

/**
 * What the service learned: profiles and user playbooks per user, agent playbooks of the organisation
 * with the user playbooks they were made from. A query runs the service's hybrid search; without one
 * the newest records are listed.
 */
export function LearningsPage() {
  const [kind, setKind] = useState<Kind>(linkedKind);
  const [draft, setDraft] = useState<Filters>(linkedFilters);
  const [filters, setFilters] = useState<Filters>(linkedFilters);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setFilters(draft);
  };
  return (
    <section aria-labelledby="learnings-title">
      <h1 id="learnings-title">Learnings</h1>
      <div role="tablist" aria-label="Kind of learning" className="tabs">
        {KINDS.map((each) => (
          <button key={each.id} type="button" role="tab" aria-selected={kind === each.id} onClick={() => setKind(each.id)}>
            {each.title}
          </button>
        ))}
      </div>
      <form className="filters" onSubmit={apply} aria-label="Filters">
        <label>
          Search
          <input type="search" value={draft.query} onChange={(event) => setDraft({ ...draft, query: event.target.value })} />
        </label>
        {kind !== "agent_playbooks" && (
          <label>
            User ID
            <input value={draft.userId} onChange={(event) => setDraft({ ...draft, userId: event.target.value })} />
          </label>
        )}
        {kind !== "profiles" && (
          <>
            <label>
              Agent version
              <input value={draft.agentVersion} onChange={(event) => setDraft({ ...draft, agentVersion: event.target.value })} />
            </label>
            <label>
              Tags (any of, comma-separated)
              <input value={draft.tags} onChange={(event) => setDraft({ ...draft, tags: event.target.value })} />
            </label>
          </>
        )}
        <label>
          Status
          <select value={draft.status} onChange={(event) => setDraft({ ...draft, status: event.target.value as Filters["status"] })}>
            <option value="">Any</option>
            <option value="CURRENT">Current</option>
            <option value="PENDING">Pending</option>
            <option value="ARCHIVED">Archived</option>
          </select>
        </label>
        {kind === "agent_playbooks" && (
          <label>
            Approval
            <select value={draft.playbookStatus} onChange={(event) => setDraft({ ...draft, playbookStatus: event.target.value as Filters["playbookStatus"] })}>
              <option value="">Approved (default)</option>
              <option value="PENDING">Pending</option>
              <option value="APPROVED">Approved</option>
              <option value="REJECTED">Rejected</option>
            </select>
          </label>
        )}
        <button type="submit" className="primary">
          Apply
        </button>
      </form>
      {kind === "profiles" && <ProfileList filters={filters} />}
      {kind === "user_playbooks" && <UserPlaybookList filters={filters} />}
      {kind === "agent_playbooks" && <AgentPlaybookList filters={filters} />}
    </section>
  );
}

/** The kind a link from another page asked for (#/learnings?kind=user_playbooks), else profiles. */
function linkedKind(): Kind {
  const kind = routeParams().get("kind");
  return KINDS.find((each) => each.id === kind)?.id ?? "profiles";
}

/** The user a link from another page asked for (#/learnings?user_id=ana). */
const linkedFilters = (): Filters => ({ ...NO_FILTERS, userId: routeParams().get("user_id") ?? "" });

/** The filters every playbook read and search of the service takes alike. */
function playbookFilters(filters: Filters) {
  const tags = filters.tags
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);
  return {
    status_filter: filters.status ? [filters.status] : undefined,
    ...(filters.agentVersion && { agent_version: filters.agentVersion }),
    ...(tags.length > 0 && { tags }),
  };
}

function ProfileList({ filters }: { filters: Filters }) {
  const { client, session } = useMember();
  const profiles = useQuery({
    queryKey: ["profiles", session.projectId, filters],
    queryFn: () =>
      client.profiles.getAll({
        limit: 100,
        ...(filters.query && { query: filters.query }),
        ...(filters.userId && { user_id: filters.userId }),
        ...(filters.status && { status_filter: filters.status.toLowerCase() }),
      }),
  });
  return (
    <Results error={profiles.error} loading={profiles.isPending} count={profiles.data?.user_profiles.length}>
      {profiles.data?.user_profiles.map((profile) => (
        <article key={profile.profile_id} className="card">
          <p>{profile.content}</p>
          <p className="muted">
            User {profile.user_id} · {profile.status ?? "current"} · kept {profile.profile_time_to_live} · {profile.tags.join(", ") || "no tags"} · updated{" "}
            {formatTime(profile.last_modified_timestamp)}
          </p>
        </article>
      ))}
    </Results>
  );
}

function UserPlaybookList({ filters }: { filters: Filters }) {
  const { client, session } = useMember();
  const playbooks = useQuery({
    queryKey: ["user-playbooks", session.projectId, filters],
    queryFn: () => {
      const common = { ...(filters.userId && { user_id: filters.userId }), ...playbookFilters(filters) };
      return filters.query ? client.userPlaybooks.search({ ...common, query: filters.query, top_k: 50 }) : client.userPlaybooks.get({ ...common, limit: 100 });
    },
  });
  return (
    <Results error={playbooks.error} loading={playbooks.isPending} count={playbooks.data?.user_playbooks.length}>
      {playbooks.data?.user_playbooks.map((playbook) => (
        <article key={playbook.user_playbook_id} className="card">
          <PlaybookText playbook={playbook} />
          <p className="muted">
            #{playbook.user_playbook_id} · user {playbook.user_id} · agent {playbook.agent_version} · {playbook.status ?? "current"} ·{" "}
            {playbook.tags.join(", ") || "no tags"}
          </p>
        </article>
      ))}
    </Results>
  );
}

function AgentPlaybookList({ filters }: { filters: Filters }) {
  const { client, session } = useMember();
  const playbooks = useQuery({
    queryKey: ["agent-playbooks", session.projectId, filters],
    queryFn: () => {
      const common = { ...playbookFilters(filters), playbook_status_filter: filters.playbookStatus ? [filters.playbookStatus] : undefined };
      return filters.query
        ? client.agentPlaybooks.search({ ...common, query: filters.query, top_k: 50 })
        : client.agentPlaybooks.get({ ...common, limit: 100 });
    },
  });
  return (
    <Results error={playbooks.error} loading={playbooks.isPending} count={playbooks.data?.agent_playbooks.length}>
      {playbooks.data?.agent_playbooks.map((playbook) => (
        <article key={playbook.agent_playbook_id} className="card">
          <PlaybookText playbook={playbook} />
          <p className="muted">
            #{playbook.agent_playbook_id} · agent {playbook.agent_version} · {playbook.playbook_status} · {playbook.tags.join(", ") || "no tags"}
          </p>
          <Lineage playbook={playbook} />
        </article>
      ))}
    </Results>
  );
}

/** The user playbooks an agent playbook was made from, read when the member opens them. */
function Lineage({ playbook }: { playbook: AgentPlaybook }) {
  const { client, session } = useMember();
  const [open, setOpen] = useState(false);
  const ids = playbook.source_user_playbook_ids;
  const sources = useQuery({
    queryKey: ["lineage", session.projectId, playbook.agent_playbook_id],
    enabled: open && ids.length > 0,
    queryFn: async () =>
      (await Promise.all(ids.map((id) => client.userPlaybooks.get({ user_playbook_id: id, limit: 1 })))).flatMap((each) => each.user_playbooks),
  });
  if (ids.length === 0) return <p className="muted">Added by hand: no source user playbooks.</p>;
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        Made from {ids.length} user playbook{ids.length === 1 ? "" : "s"}
      </summary>
      <ErrorNote error={sources.error} />
      <ul className="plain">
        {sources.data?.map((source) => (
          <li key={source.user_playbook_id}>
            #{source.user_playbook_id} (user {source.user_id}, request {source.request_id || "—"}): {source.content || source.trigger}
          </li>
        ))}
        {sources.data && sources.data.length < ids.length && <li className="muted">{ids.length - sources.data.length} source(s) since erased or deleted.</li>}
      </ul>
    </details>
  );
}

export function PlaybookText({ playbook }: { playbook: { playbook_name: string; content: string; trigger: string; rationale: string } }) {
  return (
    <dl className="playbook">
      {playbook.playbook_name && (
        <>
          <dt>Name</dt>
          <dd>{playbook.playbook_name}</dd>
        </>
      )}
      <dt>When</dt>
      <dd>{playbook.trigger || "—"}</dd>
      <dt>Do</dt>
      <dd>{playbook.content || "—"}</dd>
      <dt>Why</dt>
      <dd>{playbook.rationale || "—"}</dd>
    </dl>
  );
}

/** A result list with its loading state, error and count announced. */
export function Results({ error, loading, count, children }: { error: unknown; loading: boolean; count: number | undefined; children: React.ReactNode }) {
  return (
    <div>
      <ErrorNote error={error} />
      {loading && <p>Loading…</p>}
      {count !== undefined && <output className="muted">{count === 0 ? "Nothing found." : `${count} found.`}</output>}
      <div className="list">{children}</div>
    </div>
  );
}
