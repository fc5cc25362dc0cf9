-- Input budgets of learning: a window whose extraction input does not fit the budget, even reduced,
-- is held. Its cursor stops before it (later windows of that extractor wait, so order is kept)
-- until an operator recovers it by skipping it or retrying it with a larger budget.
ALTER TABLE learning_cursors
  -- The last stream position of the held window; null when nothing is held.
  ADD COLUMN held_through_seq      bigint,
  -- What the held window measured, and the budget it did not fit.
  ADD COLUMN held_input_tokens     integer,
  ADD COLUMN held_budget_tokens    integer,
  ADD COLUMN held_at               bigint,
  -- A retry's larger budget: it applies to the next window of this cursor only, and is cleared when it commits.
  ADD COLUMN budget_override_tokens integer;

-- Every recovery of a held window: who did what to which window.
CREATE TABLE learning_recoveries (
  recovery_id    bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id         text    NOT NULL,
  project_id     text    NOT NULL,
  user_id        text    NOT NULL,
  extractor      text    NOT NULL CHECK (extractor IN ('profile', 'playbook')),
  action         text    NOT NULL CHECK (action IN ('skip', 'retry')),
  from_seq       bigint  NOT NULL,
  through_seq    bigint  NOT NULL,
  -- The retry's budget; null for a skip.
  budget_tokens  integer,
  -- Who asked: `api_key:<key_id>`, `member:<member_id>` or `local`.
  actor_ref      text    NOT NULL,
  created_at     bigint  NOT NULL,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX learning_recoveries_by_user ON learning_recoveries (org_id, project_id, user_id, recovery_id);

CREATE TRIGGER learning_recoveries_subject_barrier AFTER INSERT ON learning_recoveries REFERENCING NEW TABLE AS written
  FOR EACH STATEMENT EXECUTE FUNCTION hold_subject_write_barrier();
