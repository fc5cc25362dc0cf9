-- Every committed change of a project's configuration is announced on the channel
-- als_config_changes, whoever wrote it (set_config and update_config, a project's deletion
-- cascading to its row, an operator's own SQL): each process of a deployment LISTENs there and forgets its
-- cached copy (packages/core/src/config/follow-config-changes.ts). NOTIFY is delivered only once the
-- transaction commits, and not at all when it rolls back. The payload is the JSON array
-- [org_id, project_id]; one that would pass NOTIFY's 8000-byte limit (and fail the write) is sent
-- empty, which means "every project".
CREATE FUNCTION notify_config_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed project_config;
  payload text;
BEGIN
  changed := CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
  payload := json_build_array(changed.org_id, changed.project_id)::text;
  PERFORM pg_notify('als_config_changes', CASE WHEN octet_length(payload) < 7900 THEN payload ELSE '' END);
  RETURN NULL;
END
$$;

CREATE TRIGGER project_config_changed AFTER INSERT OR UPDATE OR DELETE ON project_config
  FOR EACH ROW EXECUTE FUNCTION notify_config_change();
