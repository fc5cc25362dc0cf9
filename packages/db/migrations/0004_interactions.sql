-- Interactions and the requests that published them, and the state of learning from them.
--
-- Each user's interactions form a stream: `seq` is the position of an interaction in its user's
-- stream, handed out under the lock of the user's `learning_users` row, so positions of one user
-- commit in order and without gaps. Learning advances per-(user, extractor) cursors over that
-- stream: everything at or before `covered_seq` has been through the extractor.

CREATE TABLE learning_users (
  org_id            text   NOT NULL,
  project_id        text   NOT NULL,
  user_id           text   NOT NULL,
  -- The position the next published interaction of this user gets.
  next_seq          bigint NOT NULL DEFAULT 1,
  last_published_at bigint NOT NULL,
  -- One window at a time per user: the step holding this lease is the only one that may commit.
  lease_token       text,
  lease_expires_at  bigint,
  PRIMARY KEY (org_id, project_id, user_id)
);

CREATE TABLE requests (
  org_id                   text    NOT NULL,
  project_id               text    NOT NULL,
  request_id               text    NOT NULL,
  user_id                  text    NOT NULL,
  session_id               text    NOT NULL,
  source                   text    NOT NULL DEFAULT '',
  agent_version            text    NOT NULL DEFAULT 'agent-v0',
  skip_aggregation         boolean NOT NULL DEFAULT false,
  force_extraction         boolean NOT NULL DEFAULT false,
  evaluation_only          boolean NOT NULL DEFAULT false,
  override_learning_stall  boolean NOT NULL DEFAULT false,
  retrieval_experiment_id  text,
  retrieval_experiment_arm text,
  -- The stream positions of this request's interactions: learning is done when every cursor reaches last_seq.
  first_seq                bigint  NOT NULL,
  last_seq                 bigint  NOT NULL,
  created_at               bigint  NOT NULL,
  PRIMARY KEY (org_id, project_id, request_id)
);

CREATE INDEX requests_by_user ON requests (org_id, project_id, user_id, created_at DESC);
CREATE INDEX requests_by_session ON requests (org_id, project_id, session_id);
CREATE INDEX requests_by_user_seq ON requests (org_id, project_id, user_id, last_seq);

CREATE TABLE interactions (
  interaction_id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id                  text    NOT NULL,
  project_id              text    NOT NULL,
  user_id                 text    NOT NULL,
  request_id              text    NOT NULL,
  session_id              text    NOT NULL,
  seq                     bigint  NOT NULL,
  -- Excluded from extraction for good (a copy of the request's flag, so windows need no join).
  evaluation_only         boolean NOT NULL DEFAULT false,
  created_at              bigint  NOT NULL,
  role                    text    NOT NULL DEFAULT 'User',
  content                 text    NOT NULL DEFAULT '',
  shadow_content          text    NOT NULL DEFAULT '',
  expert_content          text    NOT NULL DEFAULT '',
  image_encoding          text,
  user_action             text    NOT NULL DEFAULT 'none',
  user_action_description text,
  interacted_image_url    text,
  tools_used              jsonb   NOT NULL DEFAULT '[]',
  citations               jsonb   NOT NULL DEFAULT '[]',
  -- Receipts are kept as their digest only.
  retrieved_learnings     jsonb   NOT NULL DEFAULT '[]',
  embedding               vector(384),
  embedding_model         text,
  search_text             tsvector GENERATED ALWAYS AS (to_tsvector('english', content || ' ' || coalesce(user_action_description, ''))) STORED,
  UNIQUE (org_id, project_id, user_id, seq)
);

CREATE INDEX interactions_by_request ON interactions (org_id, project_id, request_id);
CREATE INDEX interactions_by_session ON interactions (org_id, project_id, session_id);
CREATE INDEX interactions_by_project ON interactions (org_id, project_id, interaction_id DESC);
CREATE INDEX interactions_embedding_hnsw ON interactions USING hnsw (embedding vector_cosine_ops);
CREATE INDEX interactions_search_text_gin ON interactions USING gin (search_text);

CREATE TABLE learning_cursors (
  org_id        text   NOT NULL,
  project_id    text   NOT NULL,
  user_id       text   NOT NULL,
  extractor     text   NOT NULL CHECK (extractor IN ('profile', 'playbook')),
  covered_seq   bigint NOT NULL DEFAULT 0,
  -- The last attempt's failure, shown by learning_status; cleared when a window commits.
  failure       text,
  -- True when the failure will not go away by retrying (no provider configured, a stall).
  failure_final boolean NOT NULL DEFAULT false,
  attempts      integer NOT NULL DEFAULT 0,
  retry_at      bigint,
  PRIMARY KEY (org_id, project_id, user_id, extractor)
);

-- A provider refused our credentials or our money: background extraction of the project pauses.
CREATE TABLE learning_stalls (
  org_id         text    NOT NULL,
  project_id     text    NOT NULL,
  reason         text    NOT NULL CHECK (reason IN ('auth', 'billing')),
  error_message  text    NOT NULL,
  notified_in_cc boolean NOT NULL DEFAULT false,
  stalled_at     bigint  NOT NULL,
  PRIMARY KEY (org_id, project_id)
);

-- Tokens and cost of every LLM call, per request and per stage.
CREATE TABLE llm_usage (
  id            bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id        text    NOT NULL,
  project_id    text    NOT NULL,
  user_id       text,
  request_id    text,
  stage         text    NOT NULL,
  model         text    NOT NULL,
  input_tokens  integer NOT NULL,
  output_tokens integer NOT NULL,
  cost_usd      double precision,
  created_at    bigint  NOT NULL
);

CREATE INDEX llm_usage_by_request ON llm_usage (org_id, project_id, request_id);
