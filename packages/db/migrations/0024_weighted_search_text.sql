-- The full-text arm weighs where a word stands (bench/retrieval-quality.ts chose it): a playbook's
-- trigger (A) says when it applies, its content (B) what to do, its rationale (C) why; a profile's
-- content is all it has (A). Expansion terms (D: synonyms and paraphrases an LLM wrote for the
-- row when the project enables document expansion) count least, and only while `expansion_of`
-- is the digest of the text they were written for, so an edited row is never found by the terms
-- of its former text while its new expansion is pending.
ALTER TABLE profiles ADD COLUMN expansion_terms text, ADD COLUMN expansion_of text;
ALTER TABLE user_playbooks ADD COLUMN expansion_terms text, ADD COLUMN expansion_of text;
ALTER TABLE agent_playbooks ADD COLUMN expansion_terms text, ADD COLUMN expansion_of text;

-- The digest an expansion is checked against: md5 of the expanded text (profiles: content;
-- playbooks: trigger, a newline, content). Immutable, so generated columns may use it.
CREATE FUNCTION expansion_digest(trigger text, content text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN md5(coalesce(trigger || E'\n', '') || content);

DROP INDEX profiles_search_text_gin;
ALTER TABLE profiles DROP COLUMN search_text;
ALTER TABLE profiles ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', content), 'A')
  || setweight(to_tsvector('english', CASE WHEN expansion_of = expansion_digest(NULL, content) THEN coalesce(expansion_terms, '') ELSE '' END), 'D')
) STORED;
CREATE INDEX profiles_search_text_gin ON profiles USING gin (search_text);

-- User and agent playbooks alike.
DO $$
DECLARE
  playbooks text;
BEGIN
  FOREACH playbooks IN ARRAY ARRAY['user_playbooks', 'agent_playbooks'] LOOP
    EXECUTE format('DROP INDEX %I', playbooks || '_search_text_gin');
    EXECUTE format('ALTER TABLE %I DROP COLUMN search_text', playbooks);
    EXECUTE format($sql$ALTER TABLE %I ADD COLUMN search_text tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english', trigger), 'A') || setweight(to_tsvector('english', content), 'B')
      || setweight(to_tsvector('english', rationale), 'C')
      || setweight(to_tsvector('english', CASE WHEN expansion_of = expansion_digest(trigger, content) THEN coalesce(expansion_terms, '') ELSE '' END), 'D')
    ) STORED$sql$, playbooks);
    EXECUTE format('CREATE INDEX %I ON %I USING gin (search_text)', playbooks || '_search_text_gin', playbooks);
  END LOOP;
END $$;

-- Rows whose expansion is missing or was written for another text: the backlog of document
-- expansion, found through these small partial indexes rather than by hashing every row.
CREATE INDEX profiles_expansion_pending ON profiles (org_id, project_id)
  WHERE expansion_of IS DISTINCT FROM expansion_digest(NULL, content);
CREATE INDEX user_playbooks_expansion_pending ON user_playbooks (org_id, project_id)
  WHERE expansion_of IS DISTINCT FROM expansion_digest(trigger, content);
CREATE INDEX agent_playbooks_expansion_pending ON agent_playbooks (org_id, project_id)
  WHERE expansion_of IS DISTINCT FROM expansion_digest(trigger, content);

-- One expansion pass per project at a time, across worker processes: the LLM calls of a pass are
-- not repeated by another. A lease that outlived its process expires.
CREATE TABLE document_expansion_leases (
  org_id       text   NOT NULL,
  project_id   text   NOT NULL,
  leased_until bigint NOT NULL,
  PRIMARY KEY (org_id, project_id)
);
