-- Every retrieval experiment a project ran, for the lifecycle endpoints (/api/retrieval_experiments):
-- the running one is also the project configuration's retrieval_experiment (what search and publish
-- read), written in the same transaction; a stopped one keeps its row, and its id is never reused.
CREATE TABLE retrieval_experiments (
  org_id        text   NOT NULL,
  project_id    text   NOT NULL,
  experiment_id text   NOT NULL,
  -- The share of users in the treatment arm (1 - holdout_percentage / 100).
  arm_split     double precision NOT NULL CHECK (arm_split >= 0 AND arm_split <= 1),
  started_at    bigint NOT NULL,
  ended_at      bigint CHECK (ended_at IS NULL OR ended_at >= started_at),
  PRIMARY KEY (org_id, project_id, experiment_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);

-- Experiments started before this table: the running ones, from the configuration.
INSERT INTO retrieval_experiments (org_id, project_id, experiment_id, arm_split, started_at)
SELECT c.org_id, c.project_id, c.config -> 'retrieval_experiment' ->> 'experiment_id',
       (c.config -> 'retrieval_experiment' ->> 'arm_split')::double precision,
       (c.config -> 'retrieval_experiment' ->> 'started_at')::bigint
FROM project_config c
WHERE jsonb_typeof(c.config -> 'retrieval_experiment') = 'object'
  AND EXISTS (SELECT 1 FROM projects p WHERE p.org_id = c.org_id AND p.project_id = c.project_id);

-- Requests of an experiment, by arm and session: what its results count.
CREATE INDEX requests_by_experiment ON requests (org_id, project_id, retrieval_experiment_id, retrieval_experiment_arm, session_id)
  WHERE retrieval_experiment_id IS NOT NULL;
