-- Inferred outcomes: a session where a playbook was served or cited gets a service-inferred outcome
-- (a placeholder the caller's report displaces) once it has been quiet for about ten minutes, or as
-- soon as the user replies after the playbook was used. This is the durable timer of both modes,
-- shaped like evaluation_sessions' (session-timers.ts): the reconciler reads due_at, a Temporal
-- workflow sleeps until it.

-- One row per session that used a playbook. A publish moves last_activity_at and due_at and puts an
-- inferred session back to waiting, so the inference is refreshed as the session goes on; a session
-- whose caller reported its outcome is settled for good (that outcome is final).
CREATE TABLE outcome_inferences (
  org_id            text    NOT NULL,
  project_id        text    NOT NULL,
  session_id        text    NOT NULL,
  user_id           text    NOT NULL,
  playbook_used_at  bigint  NOT NULL,
  last_activity_at  bigint  NOT NULL,
  due_at            bigint  NOT NULL,
  status            text    NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'settled')),
  -- The last attempt's failure (no provider, a provider outage), kept while the session waits.
  failure           text,
  attempts          integer NOT NULL DEFAULT 0,
  retry_at          bigint,
  lease_token       text,
  lease_expires_at  bigint,
  settled_at        bigint,
  created_at        bigint  NOT NULL,
  PRIMARY KEY (org_id, project_id, session_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX outcome_inferences_due ON outcome_inferences (due_at) WHERE status = 'waiting';
CREATE INDEX outcome_inferences_by_user ON outcome_inferences (org_id, project_id, user_id);
