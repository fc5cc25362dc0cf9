-- Embedded search answers the rows it found from the in-process index, which keeps each row as a
-- search returns it (every column of the row's record) and reads it again when the change log names
-- the row. The triggers of migration 0049 fired on the columns a search filters and scores by; they
-- now fire on every column a search returns as well, so no answer keeps an older value of one.
DROP TRIGGER user_playbooks_vector_sync ON user_playbooks;
CREATE TRIGGER user_playbooks_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, user_id, request_id, agent_version, playbook_name, tags, status,
    source, created_at, trigger, content, rationale, expansion_terms, expansion_of, last_modified_timestamp
  ON user_playbooks FOR EACH ROW EXECUTE FUNCTION note_vector_change('user_playbook_id');

DROP TRIGGER agent_playbooks_vector_sync ON agent_playbooks;
CREATE TRIGGER agent_playbooks_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, agent_version, playbook_name, playbook_status, tags, status, created_at,
    trigger, content, rationale, expansion_terms, expansion_of, playbook_metadata, last_modified_timestamp
  ON agent_playbooks FOR EACH ROW EXECUTE FUNCTION note_vector_change('agent_playbook_id');
