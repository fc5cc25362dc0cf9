-- The change log that full mode's API processes follow, each into an in-process HNSW graph of its
-- own (ChangeLogFollower in packages/core). The outbox of migration 0012 is drained by one process
-- that deletes what it pushed; many processes cannot share it. So a change is also appended here
-- with the id of the transaction that made it, and each process reads the entries of transactions
-- that finished since its last read: below its snapshot's xmin every transaction has finished, so
-- that xmin is where its next read starts. Entries are pruned after a while (prune_vector_changes);
-- a process whose position fell below the pruning rebuilds its graph from the tables.
--
-- Interactions are searched one user at a time, in PostgreSQL: their changes are not logged.
ALTER TABLE vector_sync ADD COLUMN change_log boolean NOT NULL DEFAULT false;
ALTER TABLE vector_sync ADD COLUMN change_log_pruned_through xid8 NOT NULL DEFAULT '0';

CREATE TABLE vector_changes (
  xid        xid8        NOT NULL DEFAULT pg_current_xact_id(),
  noted_at   timestamptz NOT NULL DEFAULT clock_timestamp(),
  collection text        NOT NULL,
  org_id     text        NOT NULL,
  project_id text        NOT NULL,
  row_id     text        NOT NULL
);
CREATE INDEX vector_changes_by_xid ON vector_changes (xid);
CREATE INDEX vector_changes_by_time ON vector_changes (noted_at);

CREATE OR REPLACE FUNCTION note_vector_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sync record;
  changed record;
  changed_id text;
BEGIN
  SELECT enabled, change_log AND TG_TABLE_NAME <> 'interactions' AS logged INTO sync FROM vector_sync;
  IF NOT (sync.enabled OR sync.logged) THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
  EXECUTE format('SELECT ($1).%I::text', TG_ARGV[0]) INTO changed_id USING changed;
  IF sync.enabled THEN
    INSERT INTO vector_outbox (collection, org_id, project_id, row_id)
    VALUES (TG_TABLE_NAME, changed.org_id, changed.project_id, changed_id)
    ON CONFLICT (collection, org_id, project_id, row_id) DO UPDATE SET change_seq = EXCLUDED.change_seq;
  END IF;
  IF sync.logged THEN
    INSERT INTO vector_changes (collection, org_id, project_id, row_id) VALUES (TG_TABLE_NAME, changed.org_id, changed.project_id, changed_id);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION note_agent_playbook_link_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sync record;
  link record;
BEGIN
  SELECT enabled, change_log INTO sync FROM vector_sync;
  IF NOT (sync.enabled OR sync.change_log) THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN link := OLD; ELSE link := NEW; END IF;
  -- Gone with its agent playbook (ON DELETE CASCADE): that delete was noted already.
  IF sync.enabled THEN
    INSERT INTO vector_outbox (collection, org_id, project_id, row_id)
    SELECT 'agent_playbooks', org_id, project_id, agent_playbook_id::text FROM agent_playbooks WHERE agent_playbook_id = link.agent_playbook_id
    ON CONFLICT (collection, org_id, project_id, row_id) DO UPDATE SET change_seq = EXCLUDED.change_seq;
  END IF;
  IF sync.change_log THEN
    INSERT INTO vector_changes (collection, org_id, project_id, row_id)
    SELECT 'agent_playbooks', org_id, project_id, agent_playbook_id::text FROM agent_playbooks WHERE agent_playbook_id = link.agent_playbook_id;
  END IF;
  RETURN NULL;
END $$;
