import type { Client } from "@als/client";
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ErrorNote } from "../error-note.tsx";
import { formatTime } from "../format.ts";
import { HeldWindows } from "../held-windows.tsx";
import { pageLink, routeParams } from "../route.ts";
import { useMember } from "../session.tsx";
import { Results } from "./learnings.tsx";

type RequestsPage = Awaited<ReturnType<Client["requests"]["get"]>>;
type PublishedRequest = RequestsPage["sessions"][number]["requests"][number];

/** Requests shown per page of a user's conversations. */
const REQUESTS_PER_PAGE = 20;
/** Turns read per step of the project's recent sessions: the service lists the newest turns of every user. */
const TURNS_PER_STEP = 500;
const MAX_TURNS = 10_000;

/**
 * What agents published: the project's recent sessions, or one user's sessions with their requests,
 * turns, learning status and the learnings each request produced; the windows held for an operator.
 */
export function ConversationsPage() {
  const [draft, setDraft] = useState(() => routeParams().get("user_id") ?? "");
  const [shown, setShown] = useState<{ userId: string; sessionId: string }>(() => ({
    userId: routeParams().get("user_id") ?? "",
    sessionId: routeParams().get("session_id") ?? "",
  }));
  const open = (userId: string, sessionId: string) => {
    setDraft(userId);
    setShown({ userId, sessionId });
    // The URL names what is shown, so a reload or a copied link opens it again; no history entry per view.
    const params = Object.fromEntries(Object.entries({ user_id: userId, session_id: sessionId }).filter(([, value]) => value));
    window.history.replaceState(null, "", pageLink("conversations", params));
  };
  const show = (event: FormEvent) => {
    event.preventDefault();
    open(draft.trim(), "");
  };
  return (
    <section aria-labelledby="conversations-title">
      <h1 id="conversations-title">Conversations</h1>
      <StallNote />
      <HeldWindows userId={shown.userId} />
      <form className="filters" onSubmit={show} aria-label="Whose conversations">
        <label>
          User ID (empty: the project's recent sessions)
          <input value={draft} onChange={(event) => setDraft(event.target.value)} />
        </label>
        <button type="submit" className="primary">
          Show
        </button>
      </form>
      {shown.userId ? (
        <UserSessions key={`${shown.userId}\u0000${shown.sessionId}`} userId={shown.userId} sessionId={shown.sessionId} onAll={() => open(shown.userId, "")} />
      ) : (
        <ProjectSessions onOpen={open} />
      )}
    </section>
  );
}

/**
 * A provider stall fails every request's learning with its reason until it clears. The service
 * offers no operator action that clears it: the next publish with override_learning_stall that
 * learns does, once the provider's credentials or billing are fixed. The page says so, beside the
 * requests that failed.
 */
function StallNote() {
  const { client, session } = useMember();
  const stall = useQuery({ queryKey: ["stall", session.projectId], queryFn: () => client.learning.stallState(), refetchOnMount: "always" });
  if (stall.error) return <ErrorNote error={stall.error} />;
  if (!stall.data?.stalled) return null;
  return (
    <section className="card warning-card" aria-labelledby="stall-title">
      <h2 id="stall-title">Learning is stalled</h2>
      <p>
        The LLM provider refused extraction ({stall.data.reason?.replace("_", " ")}) at {formatTime(stall.data.stalled_at)}: {stall.data.error_message}.
        Requests published since fail with “learning is stalled”. Fix the provider's credentials or billing; the next publish with override_learning_stall that
        learns clears the stall and the paused users' learning goes on.
      </p>
      <p>
        <a href={pageLink("status", {})}>The stall on the status page</a>
      </p>
    </section>
  );
}

/** The project's sessions, newest activity first, from the newest turns of every user; older ones load on demand. */
function ProjectSessions({ onOpen }: { onOpen(userId: string, sessionId: string): void }) {
  const { client, session } = useMember();
  const [limit, setLimit] = useState(TURNS_PER_STEP);
  const turns = useQuery({
    queryKey: ["recent-turns", session.projectId, limit],
    queryFn: () => client.interactions.getAll({ limit }),
    placeholderData: (previous) => previous,
    // Agents publish behind the page's back: each visit reads the newest turns afresh.
    refetchOnMount: "always",
  });
  const sessions = groupSessions(turns.data?.interactions ?? []);
  const more = turns.data !== undefined && turns.data.interactions.length === limit && limit < MAX_TURNS;
  return (
    <Results error={turns.error} loading={turns.isPending} count={turns.data && sessions.length}>
      {sessions.length > 0 && (
        <table>
          <caption className="muted">Sessions with the newest activity first</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">User</th>
              <th scope="col">Last turn</th>
              <th scope="col">Requests</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((each) => (
              <tr key={`${each.userId}\u0000${each.sessionId}`}>
                <td>
                  <button type="button" className="link" onClick={() => onOpen(each.userId, each.sessionId)}>
                    {each.sessionId || "(no session)"}
                  </button>
                </td>
                <td>{each.userId}</td>
                <td>{formatTime(each.lastAt)}</td>
                <td>{each.requests}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more && (
        <button type="button" disabled={turns.isFetching} onClick={() => setLimit(Math.min(limit + TURNS_PER_STEP, MAX_TURNS))}>
          Show older sessions
        </button>
      )}
    </Results>
  );
}

interface SessionRow {
  userId: string;
  sessionId: string;
  lastAt: number;
  requests: number;
}

/** Turns (newest first) grouped into sessions of a user, in the order of their newest turn. */
function groupSessions(turns: { user_id: string; session_id: string; request_id: string; created_at: number }[]): SessionRow[] {
  const rows = new Map<string, SessionRow & { requestIds: Set<string> }>();
  for (const turn of turns) {
    const key = `${turn.user_id}\u0000${turn.session_id}`;
    const row = rows.get(key) ?? { userId: turn.user_id, sessionId: turn.session_id, lastAt: turn.created_at, requests: 0, requestIds: new Set<string>() };
    row.requestIds.add(turn.request_id);
    row.requests = row.requestIds.size;
    rows.set(key, row);
  }
  return [...rows.values()].map(({ requestIds: _, ...row }) => row);
}

/** A user's requests grouped by session, newest first, a page at a time. */
function UserSessions({ userId, sessionId, onAll }: { userId: string; sessionId: string; onAll(): void }) {
  const { client, session } = useMember();
  const [offset, setOffset] = useState(0);
  const requests = useQuery({
    queryKey: ["requests", session.projectId, userId, sessionId, offset],
    queryFn: () => client.requests.get({ user_id: userId, top_k: REQUESTS_PER_PAGE, offset, ...(sessionId && { session_id: sessionId }) }),
  });
  const count = requests.data?.sessions.reduce((sum, each) => sum + each.requests.length, 0);
  return (
    <div>
      <h2>
        {sessionId ? `Session ${sessionId} of user ${userId}` : `Sessions of user ${userId}`}{" "}
        <a className="small" href={pageLink("learnings", { user_id: userId })}>
          Learnings of {userId}
        </a>
      </h2>
      {sessionId && (
        <button type="button" onClick={onAll}>
          Every session of {userId}
        </button>
      )}
      <Results error={requests.error} loading={requests.isPending} count={count}>
        {requests.data?.sessions.map((each) => (
          <article key={each.session_id} className="card" aria-label={`Session ${each.session_id}`}>
            <h3 className="card-title">Session {each.session_id || "(none)"}</h3>
            {each.requests.map((published) => (
              <PublishedRequestView key={published.request.request_id} published={published} />
            ))}
          </article>
        ))}
      </Results>
      <div className="actions">
        {offset > 0 && (
          <button type="button" onClick={() => setOffset(Math.max(0, offset - REQUESTS_PER_PAGE))}>
            Newer requests
          </button>
        )}
        {requests.data?.has_more && (
          <button type="button" onClick={() => setOffset(offset + REQUESTS_PER_PAGE)}>
            Older requests
          </button>
        )}
      </div>
    </div>
  );
}

/** One request: when and from where, its turns, where learning from it stands, and what it produced. */
function PublishedRequestView({ published }: { published: PublishedRequest }) {
  const { request, interactions } = published;
  return (
    <section className="request" aria-label={`Request ${request.request_id}`}>
      <p className="muted">
        Request <code>{request.request_id}</code> · {formatTime(request.created_at)}
        {request.source && ` · source ${request.source}`} · agent {request.agent_version}
        {request.evaluation_only && " · evaluation only"}
      </p>
      <LearningStatus requestId={request.request_id} />
      <ol className="turns">
        {interactions.map((turn) => (
          <li key={turn.interaction_id}>
            <strong>{turn.role}:</strong> <TurnText text={turn.content} />
            {turn.expert_content && <span className="muted"> (expert: {turn.expert_content})</span>}
          </li>
        ))}
      </ol>
      <RequestLearnings userId={request.user_id} requestId={request.request_id} />
    </section>
  );
}

/** Characters of a turn shown at first: a turn can be far longer than a screen. */
const TURN_PREVIEW = 600;

function TurnText({ text }: { text: string }) {
  if (text.length <= TURN_PREVIEW) return text;
  return (
    <>
      {text.slice(0, TURN_PREVIEW)}…
      <details>
        <summary>The whole turn ({text.length} characters)</summary>
        {text}
      </details>
    </>
  );
}

/** The reason a failed request's window is held: its held window can be recovered above. */
const HELD_FOR_BUDGET = "input_budget_exceeded";

function LearningStatus({ requestId }: { requestId: string }) {
  const { client, session } = useMember();
  const status = useQuery({
    queryKey: ["learning-status", session.projectId, requestId],
    queryFn: () => client.interactions.learningStatus({ request_id: requestId }),
    // Learning moves on without the page: each visit reads where it stands now.
    refetchOnMount: "always",
  });
  if (status.error) return <ErrorNote error={status.error} />;
  if (!status.data) return <p>Learning: reading…</p>;
  const { status: state, reason } = status.data;
  const held = state === "failed" && reason === HELD_FOR_BUDGET;
  return (
    <p>
      Learning: <span className={`badge ${state}`}>{held ? "held for budget" : state.replace("_", " ")}</span>
      {reason && <span className="muted"> reason: {reason}</span>}
      {held && <span className="muted"> (recover its window under “Held windows”)</span>}
    </p>
  );
}

/** The profiles and user playbooks learned from a request, read when the member opens them. */
function RequestLearnings({ userId, requestId }: { userId: string; requestId: string }) {
  const { client, session } = useMember();
  const [open, setOpen] = useState(false);
  const learned = useQuery({
    queryKey: ["request-learnings", session.projectId, userId, requestId],
    enabled: open,
    queryFn: async () => {
      // Profiles cannot be read by request: the user's are read and those of this request kept.
      const [profiles, playbooks] = await Promise.all([
        client.profiles.get({ user_id: userId, top_k: 1000 }),
        client.userPlaybooks.get({ user_id: userId, request_id: requestId, limit: 100 }),
      ]);
      return {
        profiles: profiles.user_profiles.filter((profile) => profile.generated_from_request_id === requestId),
        playbooks: playbooks.user_playbooks,
      };
    },
  });
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Learnings from this request</summary>
      <ErrorNote error={learned.error} />
      {learned.isFetching && <p>Loading…</p>}
      {learned.data && (
        <>
          {learned.data.profiles.length + learned.data.playbooks.length === 0 && <p className="muted">Nothing learned from this request (yet).</p>}
          <ul className="plain">
            {learned.data.profiles.map((profile) => (
              <li key={profile.profile_id}>
                <a href={pageLink("learnings", { kind: "profiles", user_id: userId })}>Profile</a>: {profile.content}
              </li>
            ))}
            {learned.data.playbooks.map((playbook) => (
              <li key={playbook.user_playbook_id}>
                <a href={pageLink("learnings", { kind: "user_playbooks", user_id: userId })}>User playbook #{playbook.user_playbook_id}</a>:{" "}
                {playbook.content || playbook.trigger}
              </li>
            ))}
          </ul>
        </>
      )}
    </details>
  );
}
