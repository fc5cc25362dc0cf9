-- Session outcomes: how a session ended (success, failure, unknown), reported by the caller or
-- inferred by the service. One active row per session; a caller-reported row is final, an inferred
-- one is displaced (archived) by the caller's. user_id and source come from the session's earliest
-- request, never from the caller.
CREATE TABLE session_outcomes (
  org_id                        text    NOT NULL,
  project_id                    text    NOT NULL,
  outcome_id                    text    NOT NULL,
  session_id                    text    NOT NULL,
  user_id                       text    NOT NULL,
  source                        text    NOT NULL DEFAULT '',
  outcome                       text    NOT NULL CHECK (outcome IN ('success', 'failure', 'unknown')),
  occurred_at                   bigint  NOT NULL,
  label                         text,
  value                         double precision,
  metadata                      jsonb,
  is_inferred                   boolean NOT NULL DEFAULT false,
  -- The four integrity fields are null on a legacy row (written before they existed).
  outcome_revision              integer,
  outcome_contract_digest       text,
  finalized_trajectory_digest   text,
  trajectory_through_request_id text,
  created_at                    bigint  NOT NULL,
  -- Set when a caller's report displaced this inferred row.
  archived_at                   bigint,
  PRIMARY KEY (org_id, project_id, outcome_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX session_outcomes_active ON session_outcomes (org_id, project_id, session_id) WHERE archived_at IS NULL;
CREATE INDEX session_outcomes_by_time ON session_outcomes (org_id, project_id, occurred_at DESC);
CREATE INDEX session_outcomes_by_user ON session_outcomes (org_id, project_id, user_id, occurred_at DESC);
