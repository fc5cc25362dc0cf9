import { endpoints, type OnboardingStatus, type OnboardingStep } from "@als/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ErrorNote } from "../error-note.tsx";
import { formatRate } from "../format.ts";
import { useMember } from "../session.tsx";

const STEP_TITLES: Record<OnboardingStep["id"], string> = {
  create_api_key: "Create an API key",
  publish_conversation: "Publish a conversation",
  extract_learnings: "Learnings are extracted",
  view_learning: "Look at a learning",
  retrieve_learning: "Retrieve a learning with the API key",
  grade_session: "The session is graded",
  view_evaluation: "Look at the evaluation",
  set_up_experiment: "Set up an experiment (or defer it)",
};

type Action = {
  action: "dismiss" | "use_published_sample" | "view_learning" | "view_evaluation" | "defer_experiment" | "review_experiment";
  evidence_id?: string;
};

/**
 * The walkthrough of the default project: every milestone the member cannot set (publish, extraction,
 * retrieval, grading) is verified by the service from what it stored; "Check progress" asks it to look again.
 */
export function OnboardingPage() {
  const { client, session } = useMember();
  const queries = useQueryClient();
  const key = ["onboarding", session.projectId];
  const project = { project_id: session.projectId };
  // Opening the page checks progress: milestones reached since (a key created, a request published) show at once.
  const status = useQuery({
    queryKey: key,
    staleTime: 0,
    queryFn: async () => {
      const current = await client.onboarding.status(project);
      return current.run ? client.onboarding.refresh(project) : current;
    },
  });
  const saved = (answer: OnboardingStatus) => queries.setQueryData(key, answer);
  const initialize = useMutation({ mutationFn: () => client.onboarding.initialize(project), onSuccess: saved });
  const refresh = useMutation({ mutationFn: () => client.onboarding.refresh(project), onSuccess: saved });
  const restart = useMutation({ mutationFn: () => client.onboarding.start({ ...project, fresh: true }), onSuccess: saved });
  const act = useMutation({
    mutationFn: (action: Action) => client.onboarding.update({ ...project, run_id: status.data!.run!.run_id, ...action }),
    onSuccess: saved,
  });

  const data = status.data;
  return (
    <section aria-labelledby="onboarding-title">
      <h1 id="onboarding-title">Onboarding</h1>
      <ErrorNote error={status.error ?? initialize.error ?? refresh.error ?? restart.error ?? act.error} />
      {status.isPending && <p>Loading…</p>}
      {data && !data.eligible && <p>The walkthrough belongs to the organisation's default project; switch to it to follow it.</p>}
      {data?.eligible && data.run === null && (
        <div className="card">
          <p>Follow a sample conversation from publishing to evaluation: each step is checked against what the service stored.</p>
          <button type="button" className="primary" onClick={() => initialize.mutate()} disabled={initialize.isPending}>
            Start the walkthrough
          </button>
        </div>
      )}
      {data?.run && <Walkthrough data={data} onAct={(action) => act.mutate(action)} busy={act.isPending} />}
      {data?.run && (
        <div className="actions">
          <button type="button" className="primary" onClick={() => refresh.mutate()} disabled={refresh.isPending}>
            {refresh.isPending ? "Checking…" : "Check progress"}
          </button>
          {!data.run.dismissed && (
            <button type="button" onClick={() => act.mutate({ action: "dismiss" })}>
              Dismiss the checklist
            </button>
          )}
          <button type="button" onClick={() => restart.mutate()} disabled={restart.isPending}>
            Start a new run
          </button>
        </div>
      )}
    </section>
  );
}

function Walkthrough({ data, onAct, busy }: { data: OnboardingStatus; onAct: (action: Action) => void; busy: boolean }) {
  const run = data.run!;
  const done = data.steps.filter((step) => step.complete).length;
  const latestRequest = run.publish_request_ids.at(-1);
  return (
    <>
      <output>
        {done} of {data.steps.length} steps complete{data.core_complete ? " — the core loop works" : ""}
        {run.dismissed ? " (checklist dismissed)" : ""}.
      </output>
      {!data.prerequisites.llm_configured && <p className="warning">No LLM provider is configured: learnings cannot be extracted.</p>}
      {run.conversation === "imported" && (
        <div className="card">
          <p>The walkthrough follows an imported conversation ({run.imported_conversations[0]?.source ?? "a data source"}).</p>
          <button type="button" disabled={busy} onClick={() => onAct({ action: "use_published_sample" })}>
            Follow the published sample instead
          </button>
        </div>
      )}
      {/* A dismissed checklist stays one click away: progress is still shared with the team. */}
      <details open={!run.dismissed} className="checklist">
        <summary>Checklist</summary>
        <ol className="steps">
          {data.steps.map((step) => (
            <li key={step.id} className={`step ${step.state}`} data-step={step.id}>
              <div className="step-head">
                <strong>{STEP_TITLES[step.id]}</strong>
                <span className={`badge ${step.state}`}>{step.state}</span>
              </div>
              {step.reason && !step.complete && <p className="muted">{step.reason}</p>}
              {!step.complete && <StepHelp step={step} data={data} onAct={onAct} busy={busy} />}
            </li>
          ))}
        </ol>
      </details>
      {latestRequest && <ConversationPreview runId={run.run_id} requestId={latestRequest} />}
    </>
  );
}

/** The start of the followed conversation's latest request, as the service stored it (at most three messages). */
function ConversationPreview({ runId, requestId }: { runId: string; requestId: string }) {
  const { client, session } = useMember();
  const preview = useQuery({
    queryKey: ["onboarding-conversation", session.projectId, runId, requestId],
    queryFn: () => client.onboarding.conversation({ project_id: session.projectId, run_id: runId, request_id: requestId }),
  });
  return (
    <section className="card" aria-labelledby="conversation-title">
      <h2 id="conversation-title">The conversation followed</h2>
      <ErrorNote error={preview.error} />
      <ul className="plain conversation">
        {preview.data?.messages.map((message) => (
          <li key={message.interaction_id}>
            <strong>{message.role}:</strong> {message.content}
            {message.truncated ? "…" : ""}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** What the member can do for a step that is not complete yet. */
function StepHelp({ step, data, onAct, busy }: { step: OnboardingStep; data: OnboardingStatus; onAct: (action: Action) => void; busy: boolean }) {
  const run = data.run!;
  const origin = window.location.origin;
  switch (step.id) {
    case "create_api_key":
      return <a href="#/api-keys">Create a key on the API keys page</a>;
    case "publish_conversation":
      return (
        <Snippet
          label="Publish the sample conversation with your API key"
          text={`curl -X ${endpoints.interactions.publish.method} ${origin}${endpoints.interactions.publish.path} -H "Authorization: Bearer $API_KEY" -H "content-type: application/json" -d '${JSON.stringify(
            {
              user_id: run.user_id,
              session_id: run.session_id,
              source: run.source,
              agent_version: run.agent_version,
              interaction_data_list: [{ role: "User", content: "I am vegan and I own a golden retriever" }],
            },
          )}'`}
        />
      );
    case "view_learning":
      return data.learnings.length === 0 ? null : (
        <ul className="plain">
          {data.learnings.map((learning) => (
            <li key={learning.id}>
              <span>{learning.content}</span>{" "}
              <button type="button" disabled={busy} onClick={() => onAct({ action: "view_learning", evidence_id: learning.id })}>
                Mark “{learning.kind === "profile" ? "profile" : "playbook"}” as viewed
              </button>
            </li>
          ))}
        </ul>
      );
    case "retrieve_learning":
      return (
        <Snippet
          label="Search with your API key, as your agent will"
          text={`curl -X ${endpoints.search.unified.method} ${origin}${endpoints.search.unified.path} -H "Authorization: Bearer $API_KEY" -H "content-type: application/json" -d '${JSON.stringify(
            {
              query: "what should I know about this user",
              user_id: run.user_id,
            },
          )}'`}
        />
      );
    case "grade_session":
      return data.evaluation_enabled ? null : <p className="muted">Evaluation sampling is off (agent_success_config.sampling_rate is 0).</p>;
    case "view_evaluation":
      return data.evaluation && data.evaluation_id ? (
        <div>
          <p>
            The sample session was judged <strong>{data.evaluation.is_success ? "a success" : "a failure"}</strong> (score{" "}
            {formatRate(data.evaluation.success_score)}){data.evaluation.failure_reason ? `: ${data.evaluation.failure_reason}` : "."}
          </p>
          <button type="button" disabled={busy} onClick={() => onAct({ action: "view_evaluation", evidence_id: data.evaluation_id! })}>
            Mark the evaluation as viewed
          </button>
        </div>
      ) : null;
    case "set_up_experiment":
      return (
        <div className="actions">
          {data.active_experiment_id && (
            <button type="button" disabled={busy} onClick={() => onAct({ action: "review_experiment", evidence_id: data.active_experiment_id! })}>
              Review experiment {data.active_experiment_id}
            </button>
          )}
          <button type="button" disabled={busy} onClick={() => onAct({ action: "defer_experiment" })}>
            Defer the experiment
          </button>
        </div>
      );
    default:
      return null;
  }
}

function Snippet({ label, text }: { label: string; text: string }) {
  return (
    <figure className="snippet">
      <figcaption>{label}</figcaption>
      <pre>
        <code>{text}</code>
      </pre>
    </figure>
  );
}
