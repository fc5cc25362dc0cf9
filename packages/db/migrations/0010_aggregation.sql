-- Aggregation of user playbooks into agent playbooks, as durable operations.
--
-- An operation is the receipt and the state of one aggregation run of an agent_version. Its output
-- (agent playbooks, their links, the clusters it saw) and its `succeeded` status commit in one
-- transaction; a worker holds it under a lease, and a worker whose lease expired saves nothing.

CREATE TABLE aggregation_operations (
  operation_id     text    PRIMARY KEY,
  org_id           text    NOT NULL,
  project_id       text    NOT NULL,
  request_id       text    NOT NULL,
  agent_version    text    NOT NULL,
  status           text    NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'retrying', 'succeeded', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  -- A safe code only: never a provider's message or source content.
  error_code       text,
  result           jsonb,
  lease_token      text,
  lease_expires_at bigint,
  retry_at         bigint,
  created_at       bigint  NOT NULL,
  updated_at       bigint  NOT NULL,
  finished_at      bigint,
  UNIQUE (org_id, project_id, request_id)
);

-- At most one unfinished operation per agent_version: the index is the rule under concurrency.
CREATE UNIQUE INDEX aggregation_operations_one_unfinished ON aggregation_operations (org_id, project_id, agent_version)
  WHERE status IN ('queued', 'running', 'retrying');
CREATE INDEX aggregation_operations_runnable ON aggregation_operations (status, retry_at) WHERE status IN ('queued', 'running', 'retrying');

-- The clusters the last successful run of an agent_version found, by the hash of their member ids:
-- a cluster whose members did not change is not generated again.
CREATE TABLE aggregation_clusters (
  org_id            text   NOT NULL,
  project_id        text   NOT NULL,
  agent_version     text   NOT NULL,
  cluster_key       text   NOT NULL,
  -- null when the cluster restated an approved agent playbook, or its playbook was deleted.
  agent_playbook_id bigint REFERENCES agent_playbooks ON DELETE SET NULL,
  created_at        bigint NOT NULL,
  PRIMARY KEY (org_id, project_id, agent_version, cluster_key)
);

-- Deleting or erasing current source content cancels the unfinished operations of its agent
-- version, whichever path deleted it. Deleting archived rows (tombstone cleanup) does not.
CREATE FUNCTION cancel_aggregation_of_deleted_source() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE aggregation_operations
     SET status = 'failed', error_code = 'source_deleted', lease_token = NULL,
         finished_at = extract(epoch FROM now())::bigint, updated_at = extract(epoch FROM now())::bigint
   WHERE org_id = OLD.org_id AND project_id = OLD.project_id AND agent_version = OLD.agent_version
     AND status IN ('queued', 'running', 'retrying');
  RETURN NULL;
END $$;

CREATE TRIGGER user_playbooks_cancel_aggregation AFTER DELETE ON user_playbooks
  FOR EACH ROW WHEN (OLD.status = 'CURRENT') EXECUTE FUNCTION cancel_aggregation_of_deleted_source();
