-- The outbox of an external vector index (Qdrant). PostgreSQL stays the record: triggers on the four
-- searchable tables note every row whose vector or filterable columns changed (or that went away),
-- so no write path has to remember the index. A drain (syncVectorIndexStep in packages/core) pushes
-- the noted rows' current state and removes the entries it pushed.
--
-- One entry per row: change_seq moves on every change, so an entry changed again while its push was
-- on the way keeps its new change_seq and is pushed again by the next drain.
CREATE SEQUENCE vector_outbox_change_seq;

CREATE TABLE vector_outbox (
  collection text   NOT NULL,
  org_id     text   NOT NULL,
  project_id text   NOT NULL,
  row_id     text   NOT NULL,
  change_seq bigint NOT NULL DEFAULT nextval('vector_outbox_change_seq'),
  PRIMARY KEY (collection, org_id, project_id, row_id)
);

CREATE INDEX vector_outbox_by_change ON vector_outbox (change_seq);

-- Off until a process with a vector index configured turns it on: without an index nothing drains
-- the outbox, so nothing should fill it. Turning it on is followed by a rebuild of the index.
CREATE TABLE vector_sync (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  enabled  boolean NOT NULL
);
INSERT INTO vector_sync (enabled) VALUES (false);

-- Notes the changed row of the trigger's table (the collection of the same name); TG_ARGV[0] names
-- its id column.
CREATE FUNCTION note_vector_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed record;
  changed_id text;
BEGIN
  IF NOT (SELECT enabled FROM vector_sync) THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
  EXECUTE format('SELECT ($1).%I::text', TG_ARGV[0]) INTO changed_id USING changed;
  INSERT INTO vector_outbox (collection, org_id, project_id, row_id)
  VALUES (TG_TABLE_NAME, changed.org_id, changed.project_id, changed_id)
  ON CONFLICT (collection, org_id, project_id, row_id) DO UPDATE SET change_seq = EXCLUDED.change_seq;
  RETURN NULL;
END $$;

-- An agent playbook's points carry the sources of its linked user playbooks (the `source` filter),
-- so a link made or removed changes the agent playbook's point.
CREATE FUNCTION note_agent_playbook_link_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  link record;
BEGIN
  IF NOT (SELECT enabled FROM vector_sync) THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN link := OLD; ELSE link := NEW; END IF;
  -- Gone with its agent playbook (ON DELETE CASCADE): that delete was noted already.
  INSERT INTO vector_outbox (collection, org_id, project_id, row_id)
  SELECT 'agent_playbooks', org_id, project_id, agent_playbook_id::text FROM agent_playbooks WHERE agent_playbook_id = link.agent_playbook_id
  ON CONFLICT (collection, org_id, project_id, row_id) DO UPDATE SET change_seq = EXCLUDED.change_seq;
  RETURN NULL;
END $$;

CREATE TRIGGER profiles_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, user_id, status, source, tags, custom_feature, extractor_name,
    generated_from_request_id, profile_time_to_live, expires_at, created_at, last_modified_timestamp
  ON profiles FOR EACH ROW EXECUTE FUNCTION note_vector_change('profile_id');

CREATE TRIGGER user_playbooks_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, user_id, request_id, agent_version, playbook_name, tags, status,
    source, created_at
  ON user_playbooks FOR EACH ROW EXECUTE FUNCTION note_vector_change('user_playbook_id');

CREATE TRIGGER agent_playbooks_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, agent_version, playbook_name, playbook_status, tags, status, created_at
  ON agent_playbooks FOR EACH ROW EXECUTE FUNCTION note_vector_change('agent_playbook_id');

CREATE TRIGGER agent_playbook_sources_vector_sync
  AFTER INSERT OR DELETE ON agent_playbook_sources FOR EACH ROW EXECUTE FUNCTION note_agent_playbook_link_change();

CREATE TRIGGER interactions_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, user_id, request_id, seq
  ON interactions FOR EACH ROW EXECUTE FUNCTION note_vector_change('interaction_id');
