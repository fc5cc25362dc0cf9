-- Data sources: a project's connections to external trace providers and the stream each selects.
--
-- data_source_connections: one provider account. The credential fields are sealed (AES-256-GCM
-- under the deployment's data-source key) and never leave the service. `revision` advances on
-- credential rotation and stream selection; every write names the revision it read.
-- `draft_expires_at`: a connection is a setup draft until it is activated; an expired draft no longer
-- holds one of the project's connection slots. Times are Unix seconds.
CREATE TABLE data_source_connections (
  connection_id    text   PRIMARY KEY,
  org_id           text   NOT NULL,
  project_id       text   NOT NULL,
  name             text   NOT NULL,
  provider         text   NOT NULL,
  region           text   NOT NULL,
  sealed_credentials text NOT NULL,
  workspace_id     text,
  revision         bigint NOT NULL,
  created_at       bigint NOT NULL,
  updated_at       bigint NOT NULL,
  draft_expires_at bigint,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX data_source_connections_of_project ON data_source_connections (org_id, project_id, created_at);

-- data_source_streams: the external project a connection selected and its traffic filters (one
-- stream per connection). `revision` is the stream's own (sampling, history draft, activation).
-- The history draft: whether activation imports past traffic, and its range (Unix seconds,
-- start-inclusive, end-exclusive).
CREATE TABLE data_source_streams (
  stream_id             text   PRIMARY KEY,
  org_id                text   NOT NULL,
  project_id            text   NOT NULL,
  connection_id         text   NOT NULL UNIQUE REFERENCES data_source_connections (connection_id) ON DELETE CASCADE,
  external_project_id   text   NOT NULL,
  external_project_name text   NOT NULL,
  workspace_id          text,
  filters               jsonb  NOT NULL,
  revision              bigint NOT NULL,
  history               boolean NOT NULL DEFAULT true,
  history_start         bigint,
  history_end           bigint,
  created_at            bigint NOT NULL,
  updated_at            bigint NOT NULL,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);

-- data_source_mappings: a stream's mapping draft. `revision` counts saves (0: none yet);
-- `validated_revision` is the revision validation accepted, cleared by the next save.
CREATE TABLE data_source_mappings (
  stream_id          text   PRIMARY KEY REFERENCES data_source_streams (stream_id) ON DELETE CASCADE,
  org_id             text   NOT NULL,
  project_id         text   NOT NULL,
  definition         jsonb  NOT NULL,
  revision           bigint NOT NULL,
  validated_revision bigint,
  updated_at         bigint NOT NULL,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);

-- data_source_samples: temporary mapping evidence, read from the provider by a durable step. Up to
-- 50 records are retained; a sample expires 24 hours after creation (its records are then withheld).
-- `stream_revision`: the stream revision it was taken at. `lease_*`: the step holding it;
-- `next_attempt_at`: when a step retries after an unexpected failure; `code`/`retry_at`: why it failed.
CREATE TABLE data_source_samples (
  sample_id        text    PRIMARY KEY,
  org_id           text    NOT NULL,
  project_id       text    NOT NULL,
  stream_id        text    NOT NULL REFERENCES data_source_streams (stream_id) ON DELETE CASCADE,
  stream_revision  bigint  NOT NULL,
  status           text    NOT NULL CHECK (status IN ('in_progress', 'complete', 'failed')),
  window_start     bigint  NOT NULL,
  window_end       bigint  NOT NULL,
  records          jsonb   NOT NULL DEFAULT '[]',
  truncated        boolean NOT NULL DEFAULT false,
  coverage         jsonb,
  buckets          jsonb   NOT NULL DEFAULT '[]',
  code             text,
  retry_at         bigint,
  attempts         integer NOT NULL DEFAULT 0,
  lease_token      text,
  lease_expires_at bigint,
  next_attempt_at  bigint  NOT NULL,
  created_at       bigint  NOT NULL,
  expires_at       bigint  NOT NULL,
  completed_at     bigint,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX data_source_samples_runnable ON data_source_samples (next_attempt_at) WHERE status = 'in_progress';
CREATE INDEX data_source_samples_of_stream ON data_source_samples (org_id, project_id, stream_id, created_at DESC);
