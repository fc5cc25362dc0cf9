-- Governance: erasing a user (purge operations), the audit of erasures and exports, and the
-- suppression that keeps imports from bringing an erased user back.
--
-- Subjects are named by a minimized reference (subject_ref: an HMAC of organisation, project and
-- user id under a deployment secret), never by the raw id, in every row that outlives the erasure.

-- A purge operation: the erasure of one user of a project, idempotent on (user, request_id); it runs
-- as durable work (Temporal in full mode, the reconciler in embedded mode) with the same lease and
-- state columns as generation_runs. `subject_user_id` holds the raw id only while the operation is
-- unfinished: it is the subject write barrier (see hold_subject_write_barrier) and what the deletes
-- match, and the transaction that ends the operation clears it.
CREATE TABLE purge_operations (
  purge_id         text    PRIMARY KEY,
  org_id           text    NOT NULL,
  project_id       text    NOT NULL,
  subject_ref      text    NOT NULL,
  request_ref      text    NOT NULL,
  subject_user_id  text,
  -- Who asked (see governance_audit.actor_ref).
  actor_ref        text    NOT NULL,
  -- The step the operation is at: the deletes (in the order of SUBJECT_ERASURE), the final empty
  -- check, the audit write. Each commits with the step's own work, so a restart goes on from here.
  phase            text    NOT NULL DEFAULT 'delete' CHECK (phase IN ('delete', 'check', 'audit', 'done')),
  -- Rows removed so far, by table (and the erasure steps already done).
  progress         jsonb   NOT NULL DEFAULT '{"done": [], "counts": {}}',
  status           text    NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'retrying', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  -- A safe code only; error_detail names tables, never data.
  error_code       text,
  error_detail     text,
  result           jsonb,
  lease_token      text,
  lease_expires_at bigint,
  retry_at         bigint,
  created_at       bigint  NOT NULL,
  updated_at       bigint  NOT NULL,
  finished_at      bigint,
  CHECK ((subject_user_id IS NULL) = (status IN ('succeeded', 'failed'))),
  UNIQUE (org_id, project_id, subject_ref, request_ref)
);

CREATE INDEX purge_operations_barrier ON purge_operations (org_id, project_id, subject_user_id) WHERE subject_user_id IS NOT NULL;
CREATE INDEX purge_operations_runnable ON purge_operations (status, retry_at) WHERE status IN ('queued', 'running', 'retrying');

-- Erasures and exports, by minimized references and counts: no user id, no bearer token, no content.
-- Written by the service, never listed through the API. Like purge_operations, it has no foreign key
-- to projects: the record of an erasure outlives the project it was made in.
CREATE TABLE governance_audit (
  audit_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id      text   NOT NULL,
  project_id  text   NOT NULL,
  action      text   NOT NULL CHECK (action IN ('export_user', 'erase_user')),
  subject_ref text   NOT NULL,
  request_ref text   NOT NULL,
  -- Who asked: `member:<member_id>` (a governance session); never the token.
  actor_ref   text   NOT NULL,
  -- The erasure this row completes: at most one audit row each, so a retried last step writes none twice.
  purge_id    text   UNIQUE,
  counts      jsonb  NOT NULL,
  created_at  bigint NOT NULL
);

-- Users erased from a project: a data source's later import (a mapping edit, a reconnect) must not
-- bring them back. Only the minimized reference is kept.
CREATE TABLE subject_suppressions (
  org_id      text   NOT NULL,
  project_id  text   NOT NULL,
  subject_ref text   NOT NULL,
  created_at  bigint NOT NULL,
  PRIMARY KEY (org_id, project_id, subject_ref)
);

-- The advisory lock of one subject (a user of a project). Writers of the subject's rows hold it
-- shared for their transaction; the request that starts an erasure takes it exclusively, so it
-- waits for writers already under way (whose rows the deletes then see) and writers that come
-- later see the barrier. A collision of two subjects' keys only makes one wait for the other.
CREATE FUNCTION subject_lock_key(org_id text, project_id text, user_id text) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT hashtextextended(org_id || chr(31) || project_id || chr(31) || user_id, 0) $$;

-- The subject write barrier: rows of a user under erasure are refused (SQLSTATE ALS01, which the
-- service answers 409 erasure_in_progress). A statement trigger over the inserted rows, so a batch
-- costs one check, not one per row; rows of other users pass.
CREATE FUNCTION hold_subject_write_barrier() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(subject_lock_key(s.org_id, s.project_id, s.user_id))
     FROM (SELECT DISTINCT org_id, project_id, user_id FROM written WHERE user_id IS NOT NULL ORDER BY 1, 2, 3) s;
  IF EXISTS (SELECT 1 FROM written w JOIN purge_operations p
              ON p.org_id = w.org_id AND p.project_id = w.project_id AND p.subject_user_id = w.user_id) THEN
    RAISE EXCEPTION 'the user is being erased; nothing of them is written until the erasure completes' USING ERRCODE = 'ALS01';
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER requests_subject_barrier AFTER INSERT ON requests REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER interactions_subject_barrier AFTER INSERT ON interactions REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER learning_users_subject_barrier AFTER INSERT ON learning_users REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER learning_cursors_subject_barrier AFTER INSERT ON learning_cursors REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER profiles_subject_barrier AFTER INSERT ON profiles REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER profile_change_log_subject_barrier AFTER INSERT ON profile_change_log REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER user_playbooks_subject_barrier AFTER INSERT ON user_playbooks REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER session_outcomes_subject_barrier AFTER INSERT ON session_outcomes REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER llm_usage_subject_barrier AFTER INSERT ON llm_usage REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER search_evidence_subject_barrier AFTER INSERT ON search_evidence REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
