-- Evaluation: did the learnings help? Sessions sampled for grading wait here for their inactivity
-- delay (the durable timer of both modes: the reconciler reads due_at, a Temporal workflow sleeps
-- until it), then an LLM judge grades them: one agent success result per session, per-learning
-- relevance and impact verdicts, and per-turn shadow comparisons.

-- One row per session sampled for any evaluation. A publish moves last_activity_at and due_at and
-- puts a graded session back to waiting, so a session that goes on is graded again (its results
-- replaced). user_id and source are the session's first request's.
CREATE TABLE evaluation_sessions (
  org_id            text    NOT NULL,
  project_id        text    NOT NULL,
  session_id        text    NOT NULL,
  user_id           text    NOT NULL,
  source            text    NOT NULL DEFAULT '',
  agent_version     text    NOT NULL,
  evaluation_only   boolean NOT NULL DEFAULT false,
  -- What the session was sampled for (agent_success_config at its first publish); shadow comparisons
  -- run for every session whose turns carry shadow_content.
  success_sampled   boolean NOT NULL,
  learning_sampled  boolean NOT NULL,
  has_shadow        boolean NOT NULL DEFAULT false,
  last_activity_at  bigint  NOT NULL,
  due_at            bigint  NOT NULL,
  status            text    NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'graded')),
  -- The last attempt's failure (no provider, a provider outage), shown while the session waits.
  failure           text,
  attempts          integer NOT NULL DEFAULT 0,
  retry_at          bigint,
  lease_token       text,
  lease_expires_at  bigint,
  graded_at         bigint,
  created_at        bigint  NOT NULL,
  PRIMARY KEY (org_id, project_id, session_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX evaluation_sessions_due ON evaluation_sessions (due_at) WHERE status = 'waiting';
CREATE INDEX evaluation_sessions_by_user ON evaluation_sessions (org_id, project_id, user_id);

-- The judge's verdict on a session. One current row per session (superseded_at null); a regrade
-- supersedes it. On-demand grades stay findable for their 24-hour cache by (session, agent_version).
CREATE TABLE agent_success_evaluations (
  result_id                       bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id                          text    NOT NULL,
  project_id                      text    NOT NULL,
  session_id                      text    NOT NULL,
  user_id                         text    NOT NULL,
  source                          text    NOT NULL DEFAULT '',
  agent_version                   text    NOT NULL,
  evaluation_only                 boolean NOT NULL DEFAULT false,
  evaluation_name                 text,
  origin                          text    NOT NULL CHECK (origin IN ('sampled', 'on_demand', 'regenerate')),
  is_success                      boolean NOT NULL,
  success_score                   double precision NOT NULL CHECK (success_score >= 0 AND success_score <= 1),
  failure_type                    text,
  failure_reason                  text,
  number_of_correction_per_session integer NOT NULL DEFAULT 0,
  user_turns_to_resolution        integer,
  is_escalated                    boolean NOT NULL DEFAULT false,
  regular_vs_shadow               text,
  -- Learnings the session's responses were given and cited, as 'kind:learning_id' (rule attribution).
  retrieved_learning_refs         text[]  NOT NULL DEFAULT '{}',
  cited_learning_refs             text[]  NOT NULL DEFAULT '{}',
  trajectory_through_request_id   text,
  trajectory_interaction_count    integer NOT NULL,
  judge_prompt                    text    NOT NULL,
  model                           text    NOT NULL,
  -- The session's first request's time: what windows and buckets place the session by.
  session_started_at              bigint  NOT NULL,
  created_at                      bigint  NOT NULL,
  superseded_at                   bigint,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX agent_success_evaluations_current ON agent_success_evaluations (org_id, project_id, session_id) WHERE superseded_at IS NULL;
CREATE INDEX agent_success_evaluations_by_start ON agent_success_evaluations (org_id, project_id, session_started_at) WHERE superseded_at IS NULL;
CREATE INDEX agent_success_evaluations_by_time ON agent_success_evaluations (org_id, project_id, created_at DESC);
CREATE INDEX agent_success_evaluations_on_demand ON agent_success_evaluations (org_id, project_id, session_id, agent_version, created_at DESC)
  WHERE origin = 'on_demand';
CREATE INDEX agent_success_evaluations_by_user ON agent_success_evaluations (org_id, project_id, user_id);

-- The latest per-learning verdicts of a session: one row per (user, session, interaction, kind,
-- learning); a new evaluation of the session replaces its whole set.
CREATE TABLE retrieved_learning_evaluations (
  result_id                bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id                   text    NOT NULL,
  project_id               text    NOT NULL,
  user_id                  text    NOT NULL,
  session_id               text    NOT NULL,
  agent_version            text    NOT NULL,
  interaction_id           bigint  NOT NULL,
  interaction_created_at   bigint  NOT NULL,
  kind                     text    NOT NULL CHECK (kind IN ('profile', 'user_playbook', 'agent_playbook')),
  learning_id              text    NOT NULL,
  cited                    boolean NOT NULL,
  -- Only a receipt this service issued for this session and user playbook proves the served version.
  exposure_verified        boolean NOT NULL,
  is_relevant              boolean,
  relevance_reason         text    NOT NULL DEFAULT '',
  impact                   text    CHECK (impact IN ('positive', 'negative', 'neutral')),
  impact_reason            text    NOT NULL DEFAULT '',
  diagnosis                jsonb,
  created_at               bigint  NOT NULL,
  UNIQUE (org_id, project_id, user_id, session_id, interaction_id, kind, learning_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX retrieved_learning_evaluations_by_time ON retrieved_learning_evaluations (org_id, project_id, interaction_created_at DESC);
CREATE INDEX retrieved_learning_evaluations_by_session ON retrieved_learning_evaluations (org_id, project_id, session_id);

-- Per-turn verdicts of the shadow judge: the regular answer against the turn's shadow_content, under
-- one judge prompt version (the project's pinned one is what reads see).
CREATE TABLE shadow_comparisons (
  verdict_id             bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id                 text    NOT NULL,
  project_id             text    NOT NULL,
  user_id                text    NOT NULL,
  session_id             text    NOT NULL,
  interaction_id         bigint  NOT NULL,
  agent_version          text    NOT NULL,
  judge_prompt_version   text    NOT NULL,
  winner                 text    NOT NULL CHECK (winner IN ('regular', 'shadow', 'tie')),
  is_significantly_better boolean NOT NULL,
  comparison_reason      text,
  interaction_created_at bigint  NOT NULL,
  created_at             bigint  NOT NULL,
  UNIQUE (org_id, project_id, interaction_id, judge_prompt_version),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX shadow_comparisons_by_time ON shadow_comparisons (org_id, project_id, judge_prompt_version, created_at DESC);
CREATE INDEX shadow_comparisons_by_turn_time ON shadow_comparisons (org_id, project_id, judge_prompt_version, interaction_created_at);
CREATE INDEX shadow_comparisons_by_user ON shadow_comparisons (org_id, project_id, user_id);

-- Regenerate jobs: the judge replayed over the sessions of a closed window, as durable work with the
-- columns of every leased run (see leased-runs.ts); progress and failures are kept on the row.
CREATE TABLE evaluation_jobs (
  job_id           text    PRIMARY KEY,
  org_id           text    NOT NULL,
  project_id       text    NOT NULL,
  from_ts          bigint  NOT NULL,
  to_ts            bigint  NOT NULL,
  evaluation_name  text,
  status           text    NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'retrying', 'succeeded', 'failed')),
  total            integer NOT NULL,
  completed        integer NOT NULL DEFAULT 0,
  failed           integer NOT NULL DEFAULT 0,
  -- The last session graded (or failed), in session_id order: a restart goes on after it.
  after_session_id text,
  failures         jsonb   NOT NULL DEFAULT '[]',
  attempts         integer NOT NULL DEFAULT 0,
  error_code       text,
  result           jsonb,
  lease_token      text,
  lease_expires_at bigint,
  retry_at         bigint,
  created_at       bigint  NOT NULL,
  updated_at       bigint  NOT NULL,
  finished_at      bigint,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX evaluation_jobs_runnable ON evaluation_jobs (status, retry_at) WHERE status IN ('queued', 'running', 'retrying');

