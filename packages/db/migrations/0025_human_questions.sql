-- Human questions: an extraction window that cannot decide alone asks a person (the ask_human
-- tool) and waits, durably, for the answer.
--
-- extraction_runs: the agent state of a window that asked. `messages` holds what the model was
-- sent and what it answered (its questions and any partial output), so the run resumes in any
-- process. While a run of a cursor waits, that cursor's windows (this one and the ones after it)
-- wait with it; the run finishes in the transaction that commits the window's learnings.
CREATE TABLE extraction_runs (
  run_id      text   PRIMARY KEY,
  org_id      text   NOT NULL,
  project_id  text   NOT NULL,
  user_id     text   NOT NULL,
  extractor   text   NOT NULL,
  -- The window: the cursor's position when it asked, and the window's last interaction.
  from_seq    bigint NOT NULL,
  through_seq bigint NOT NULL,
  status      text   NOT NULL CHECK (status IN ('waiting', 'finished')),
  messages    jsonb  NOT NULL,
  created_at  bigint NOT NULL,
  finished_at bigint
);
CREATE UNIQUE INDEX extraction_runs_one_waiting ON extraction_runs (org_id, project_id, user_id, extractor) WHERE status = 'waiting';

-- pending_tool_calls: one question. `scope` says what it is about (project, user, the question
-- normalised), `scope_hash` is its stable hash: a resolved call of the same scope still valid is
-- reused instead of asking again. `dedup_key` adds the answer format and args: an identical
-- pending question is asked once, whoever else needs it. Times are Unix seconds.
CREATE TABLE pending_tool_calls (
  id            text   PRIMARY KEY,
  -- Insertion order: "newest first" among questions raised in the same second.
  seq           bigint GENERATED ALWAYS AS IDENTITY,
  org_id        text   NOT NULL,
  project_id    text   NOT NULL,
  user_id       text,
  tool_name     text   NOT NULL,
  scope         jsonb  NOT NULL,
  scope_hash    text   NOT NULL,
  dedup_key     text   NOT NULL,
  status        text   NOT NULL CHECK (status IN ('pending', 'resolved', 'expired', 'superseded', 'cancelled')),
  question_text text   NOT NULL,
  answer_format text,
  args          jsonb  NOT NULL DEFAULT '{}',
  tags          text[] NOT NULL DEFAULT '{}',
  result        jsonb,
  superseded_by text,
  created_at    bigint NOT NULL,
  resolved_at   bigint,
  expires_at    bigint NOT NULL,
  cache_until   bigint,
  valid_until   bigint
);
CREATE INDEX pending_tool_calls_newest ON pending_tool_calls (org_id, project_id, created_at DESC, seq DESC);
CREATE INDEX pending_tool_calls_by_scope ON pending_tool_calls (org_id, project_id, scope_hash);
CREATE UNIQUE INDEX pending_tool_calls_one_pending ON pending_tool_calls (org_id, project_id, dedup_key) WHERE status = 'pending';

-- Which runs wait on which questions: a deduplicated question can hold several runs (a profile and
-- a playbook window of the same user asking the same thing).
CREATE TABLE extraction_run_questions (
  run_id  text NOT NULL REFERENCES extraction_runs (run_id) ON DELETE CASCADE,
  call_id text NOT NULL REFERENCES pending_tool_calls (id) ON DELETE CASCADE,
  PRIMARY KEY (run_id, call_id)
);
CREATE INDEX extraction_run_questions_by_call ON extraction_run_questions (call_id);

CREATE TRIGGER extraction_runs_subject_barrier AFTER INSERT ON extraction_runs REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
CREATE TRIGGER pending_tool_calls_subject_barrier AFTER INSERT ON pending_tool_calls REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
