-- Generation runs: rerun and manual generation of profiles or user playbooks, and applied reviews of
-- user playbooks, as durable work. A run is created in the request's transaction, before the answer;
-- a worker (the reconciler in embedded mode) holds it under a lease while it works, with the same
-- state columns as aggregation_operations. `progress` is the run's cursor: it moves in the
-- transaction that commits each user's (or playbook's) output, only from the value the worker last
-- read, so a run taken up again after its worker died continues after what was committed and a
-- worker that lost the run commits nothing more.
CREATE TABLE generation_runs (
  run_id           text    PRIMARY KEY,
  org_id           text    NOT NULL,
  project_id       text    NOT NULL,
  kind             text    NOT NULL CHECK (kind IN ('rerun', 'manual', 'review_apply')),
  -- The kind of learning a rerun or a manual generation extracts; none for a review.
  extractor        text    CHECK (extractor IN ('profile', 'playbook')),
  -- What the request asked for: a generation's interaction filters, a review's playbooks.
  params           jsonb   NOT NULL,
  progress         jsonb   NOT NULL,
  status           text    NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'retrying', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  -- A safe code only: never a provider's message or source content.
  error_code       text,
  result           jsonb,
  lease_token      text,
  lease_expires_at bigint,
  retry_at         bigint,
  created_at       bigint  NOT NULL,
  updated_at       bigint  NOT NULL,
  finished_at      bigint,
  CHECK ((kind = 'review_apply') = (extractor IS NULL))
);

CREATE INDEX generation_runs_runnable ON generation_runs (status, retry_at) WHERE status IN ('queued', 'running', 'retrying');
