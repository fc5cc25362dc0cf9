-- Profiles: per-user facts. Every row is scoped by organisation and project.
-- Timestamps are Unix seconds (int8), as the contract puts them on the wire.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE profiles (
  org_id                    text    NOT NULL,
  project_id                text    NOT NULL,
  profile_id                text    NOT NULL,
  user_id                   text    NOT NULL,
  content                   text    NOT NULL,
  status                    text    NOT NULL DEFAULT 'CURRENT' CHECK (status IN ('CURRENT', 'PENDING', 'ARCHIVED')),
  source                    text    NOT NULL DEFAULT '',
  profile_time_to_live      text    NOT NULL DEFAULT 'infinity',
  expires_at                bigint,
  tags                      text[]  NOT NULL DEFAULT '{}',
  custom_feature            text,
  extractor_name            text,
  generated_from_request_id text,
  created_at                bigint  NOT NULL,
  last_modified_timestamp   bigint  NOT NULL,
  embedding                 vector(384),
  -- The model that produced `embedding`; rows of another model are re-embedded in the background.
  embedding_model           text,
  search_text               tsvector GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
  PRIMARY KEY (org_id, project_id, profile_id)
);

CREATE INDEX profiles_by_user ON profiles (org_id, project_id, user_id, last_modified_timestamp DESC);
CREATE INDEX profiles_by_modified ON profiles (org_id, project_id, last_modified_timestamp DESC);
CREATE INDEX profiles_by_embedding_model ON profiles (org_id, project_id, embedding_model);
CREATE INDEX profiles_embedding_hnsw ON profiles USING hnsw (embedding vector_cosine_ops);
CREATE INDEX profiles_search_text_gin ON profiles USING gin (search_text);

-- One row per change to one user's profiles; snapshots exclude embeddings.
CREATE TABLE profile_change_log (
  id                 bigserial PRIMARY KEY,
  org_id             text   NOT NULL,
  project_id         text   NOT NULL,
  user_id            text   NOT NULL,
  request_id         text,
  added_profiles     jsonb  NOT NULL DEFAULT '[]',
  removed_profiles   jsonb  NOT NULL DEFAULT '[]',
  created_at         bigint NOT NULL
);

CREATE INDEX profile_change_log_by_project ON profile_change_log (org_id, project_id, id DESC);
