-- Dashboard onboarding: one walkthrough run per project at a time (the current one), shared by the
-- project's members. Milestones that a client cannot set are verified from persisted evidence and
-- saved here when verified (first time kept); `revision` advances with every saved change, so two
-- members' concurrent updates cannot overwrite each other (the later one gets 409 and re-reads).
CREATE TABLE onboarding_runs (
  org_id                 text    NOT NULL,
  project_id             text    NOT NULL,
  run_id                 text    NOT NULL,
  walkthrough_version    integer NOT NULL,
  is_current             boolean NOT NULL DEFAULT true,
  agent_version          text    NOT NULL,
  conversation           text    NOT NULL DEFAULT 'published_sample' CHECK (conversation IN ('published_sample', 'imported')),
  -- The selected imported conversation: a committed request of the project.
  imported_request_id    text,
  milestones             jsonb   NOT NULL DEFAULT '{}',
  viewed_evidence_ids    text[]  NOT NULL DEFAULT '{}',
  retrieved_learning_ids text[]  NOT NULL DEFAULT '{}',
  selected_experiment_id text,
  dismissed_at           bigint,
  revision               integer NOT NULL DEFAULT 1,
  created_at             bigint  NOT NULL,
  updated_at             bigint  NOT NULL,
  PRIMARY KEY (org_id, project_id, run_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX onboarding_runs_current ON onboarding_runs (org_id, project_id) WHERE is_current;
