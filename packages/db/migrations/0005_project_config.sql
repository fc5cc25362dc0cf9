-- Each project's configuration: the validated whole, every field resolved (defaults included), so a
-- read needs no merging. A project without a row has every field at its default. Changes lock the
-- row (SELECT ... FOR UPDATE) and validate the merged whole before writing it: a partial update of
-- one field never loses a concurrent update of another, and never stores a combination no single
-- request was checked against.
CREATE TABLE project_config (
  org_id     text   NOT NULL,
  project_id text   NOT NULL,
  config     jsonb  NOT NULL CHECK (jsonb_typeof(config) = 'object'),
  updated_at bigint NOT NULL,
  PRIMARY KEY (org_id, project_id)
);
