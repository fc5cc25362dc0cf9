-- Playbooks: guidance for an agent (when `trigger` holds, do `content`, because `rationale`).
-- User playbooks belong to one user; agent playbooks belong to the organisation and are approved by
-- a human. Ids are identities, unique across projects; every query still names org and project.
--
-- `embedding` is the vector of trigger and content (see embeddingTextOf in packages/core): a search
-- describes the situation the agent is in or the guidance it wants, which is what those two say;
-- the rationale only explains, and would pull the vector away from both. Full-text search also
-- reads the rationale, since a word match there is still a match the caller asked for.

CREATE TABLE user_playbooks (
  user_playbook_id        bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id                  text    NOT NULL,
  project_id              text    NOT NULL,
  user_id                 text    NOT NULL,
  request_id              text,
  agent_version           text    NOT NULL DEFAULT 'agent-v0',
  playbook_name           text    NOT NULL DEFAULT '',
  content                 text    NOT NULL DEFAULT '',
  trigger                 text    NOT NULL DEFAULT '',
  rationale               text    NOT NULL DEFAULT '',
  tags                    text[]  NOT NULL DEFAULT '{}',
  status                  text    NOT NULL DEFAULT 'CURRENT' CHECK (status IN ('CURRENT', 'PENDING', 'ARCHIVED')),
  source                  text    NOT NULL DEFAULT '',
  created_at              bigint  NOT NULL,
  last_modified_timestamp bigint  NOT NULL,
  embedding               vector(384),
  embedding_model         text,
  search_text             tsvector GENERATED ALWAYS AS (to_tsvector('english', trigger || ' ' || content || ' ' || rationale)) STORED
);

CREATE INDEX user_playbooks_by_user ON user_playbooks (org_id, project_id, user_id, created_at DESC);
CREATE INDEX user_playbooks_by_created ON user_playbooks (org_id, project_id, created_at DESC);
CREATE INDEX user_playbooks_embedding_hnsw ON user_playbooks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX user_playbooks_search_text_gin ON user_playbooks USING gin (search_text);

CREATE TABLE agent_playbooks (
  agent_playbook_id       bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id                  text    NOT NULL,
  project_id              text    NOT NULL,
  agent_version           text    NOT NULL DEFAULT 'agent-v0',
  playbook_name           text    NOT NULL DEFAULT '',
  content                 text    NOT NULL DEFAULT '',
  trigger                 text    NOT NULL DEFAULT '',
  rationale               text    NOT NULL DEFAULT '',
  playbook_status         text    NOT NULL DEFAULT 'PENDING' CHECK (playbook_status IN ('PENDING', 'APPROVED', 'REJECTED')),
  -- The text of a JSON object, kept as the caller wrote it (the contract carries it as a string).
  playbook_metadata       text    NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(playbook_metadata::jsonb) = 'object'),
  tags                    text[]  NOT NULL DEFAULT '{}',
  status                  text    NOT NULL DEFAULT 'CURRENT' CHECK (status IN ('CURRENT', 'PENDING', 'ARCHIVED')),
  created_at              bigint  NOT NULL,
  last_modified_timestamp bigint  NOT NULL,
  embedding               vector(384),
  embedding_model         text,
  search_text             tsvector GENERATED ALWAYS AS (to_tsvector('english', trigger || ' ' || content || ' ' || rationale)) STORED
);

CREATE INDEX agent_playbooks_by_created ON agent_playbooks (org_id, project_id, created_at DESC);
CREATE INDEX agent_playbooks_by_approval ON agent_playbooks (org_id, project_id, playbook_status, created_at DESC);
CREATE INDEX agent_playbooks_embedding_hnsw ON agent_playbooks USING hnsw (embedding vector_cosine_ops);
CREATE INDEX agent_playbooks_search_text_gin ON agent_playbooks USING gin (search_text);

-- The user playbooks an agent playbook was made from. Deleting either side removes the link only:
-- an agent playbook outlives the user playbooks it summarises (erasing a user must not delete
-- organisation guidance), and a deleted agent playbook leaves its sources in place.
CREATE TABLE agent_playbook_sources (
  agent_playbook_id bigint NOT NULL REFERENCES agent_playbooks ON DELETE CASCADE,
  user_playbook_id  bigint NOT NULL REFERENCES user_playbooks ON DELETE CASCADE,
  PRIMARY KEY (agent_playbook_id, user_playbook_id)
);

CREATE INDEX agent_playbook_sources_by_user_playbook ON agent_playbook_sources (user_playbook_id);
