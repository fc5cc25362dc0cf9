-- The in-process text index of embedded search (packages/vector/src/in-process/text-index.ts) holds
-- each row's search_text and learns of changes through the change log. search_text is generated from
-- the text columns, and an edit of a rationale or a row's expansion terms changes no embedding: the
-- triggers also fire on the columns search_text is made of, so the index reads the row again.
DROP TRIGGER profiles_vector_sync ON profiles;
CREATE TRIGGER profiles_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, user_id, status, source, tags, custom_feature, extractor_name,
    generated_from_request_id, profile_time_to_live, expires_at, created_at, last_modified_timestamp,
    content, expansion_terms, expansion_of
  ON profiles FOR EACH ROW EXECUTE FUNCTION note_vector_change('profile_id');

DROP TRIGGER user_playbooks_vector_sync ON user_playbooks;
CREATE TRIGGER user_playbooks_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, user_id, request_id, agent_version, playbook_name, tags, status,
    source, created_at, trigger, content, rationale, expansion_terms, expansion_of
  ON user_playbooks FOR EACH ROW EXECUTE FUNCTION note_vector_change('user_playbook_id');

DROP TRIGGER agent_playbooks_vector_sync ON agent_playbooks;
CREATE TRIGGER agent_playbooks_vector_sync
  AFTER INSERT OR DELETE OR UPDATE OF embedding, embedding_model, agent_version, playbook_name, playbook_status, tags, status, created_at,
    trigger, content, rationale, expansion_terms, expansion_of
  ON agent_playbooks FOR EACH ROW EXECUTE FUNCTION note_vector_change('agent_playbook_id');
