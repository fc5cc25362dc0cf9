-- Reviews of user playbooks: a run decides per playbook (accept, reject, edit, skip). An applied
-- decision is committed with its row here before the next playbook is reviewed, so a run that
-- fails later keeps what it decided; an edit's replacement records its lineage under the run.
CREATE TABLE playbook_review_runs (
  run_id      text    PRIMARY KEY,
  org_id      text    NOT NULL,
  project_id  text    NOT NULL,
  status      text    NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
  error_code  text,
  created_at  bigint  NOT NULL,
  finished_at bigint
);

CREATE TABLE playbook_review_decisions (
  run_id           text   NOT NULL REFERENCES playbook_review_runs ON DELETE CASCADE,
  user_playbook_id bigint NOT NULL,
  decision         text   NOT NULL CHECK (decision IN ('accept', 'reject', 'edit', 'skip')),
  reason           text   NOT NULL,
  -- The CURRENT playbook that replaced an edited one.
  replacement_id   bigint,
  decided_at       bigint NOT NULL,
  PRIMARY KEY (run_id, user_playbook_id)
);

CREATE INDEX playbook_review_decisions_by_replacement ON playbook_review_decisions (replacement_id) WHERE replacement_id IS NOT NULL;
