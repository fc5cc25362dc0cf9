-- Every row of tenant data belongs to a project that exists: (org_id, project_id) gains a foreign key
-- to projects on each table of tenant data, and removing a project removes its data (the delete
-- triggers of the vector outbox still fire for cascaded rows, so the vector index forgets them too).
-- vector_outbox itself has none: it must outlive the rows whose removal it carries to the index.

-- First, every (organisation, project) that already holds data becomes an organisation and a project.
CREATE TEMPORARY TABLE existing_scopes ON COMMIT DROP AS
SELECT org_id, project_id FROM profiles
UNION SELECT org_id, project_id FROM profile_change_log
UNION SELECT org_id, project_id FROM user_playbooks
UNION SELECT org_id, project_id FROM agent_playbooks
UNION SELECT org_id, project_id FROM interactions
UNION SELECT org_id, project_id FROM requests
UNION SELECT org_id, project_id FROM project_config
UNION SELECT org_id, project_id FROM search_session_served
UNION SELECT org_id, project_id FROM search_evidence
UNION SELECT org_id, project_id FROM aggregation_operations
UNION SELECT org_id, project_id FROM aggregation_clusters
UNION SELECT org_id, project_id FROM generation_runs
UNION SELECT org_id, project_id FROM playbook_review_runs
UNION SELECT org_id, project_id FROM learning_users
UNION SELECT org_id, project_id FROM learning_cursors
UNION SELECT org_id, project_id FROM learning_stalls
UNION SELECT org_id, project_id FROM llm_usage;

INSERT INTO organizations (org_id, name, created_at)
SELECT DISTINCT org_id, org_id, extract(epoch FROM now())::bigint FROM existing_scopes
ON CONFLICT DO NOTHING;
INSERT INTO projects (org_id, project_id, name, created_at)
SELECT DISTINCT org_id, project_id, project_id, extract(epoch FROM now())::bigint FROM existing_scopes
ON CONFLICT DO NOTHING;

ALTER TABLE profiles ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE profile_change_log ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE user_playbooks ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE agent_playbooks ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE interactions ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE requests ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE project_config ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE search_session_served ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE search_evidence ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE aggregation_operations ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE aggregation_clusters ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE generation_runs ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE playbook_review_runs ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE learning_users ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE learning_cursors ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE learning_stalls ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
ALTER TABLE llm_usage ADD FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE;
