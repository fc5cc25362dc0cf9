-- Learnings served to a search session: a later search of the same session does not serve them
-- again. The primary key is the claim: concurrent searches of one session insert with
-- ON CONFLICT DO NOTHING and serve only the rows they inserted.
CREATE TABLE search_session_served (
  org_id         text   NOT NULL,
  project_id     text   NOT NULL,
  session_id     text   NOT NULL,
  kind           text   NOT NULL CHECK (kind IN ('profile', 'user_playbook', 'agent_playbook')),
  item_id        text   NOT NULL,
  -- The interaction the results were served for, when the caller names one.
  interaction_id bigint,
  served_at      bigint NOT NULL,
  PRIMARY KEY (org_id, project_id, session_id, kind, item_id)
);

-- Per-deployment values the service makes for itself once (the embedded mode's receipt secret).
CREATE TABLE service_secrets (
  name       text PRIMARY KEY,
  value      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
