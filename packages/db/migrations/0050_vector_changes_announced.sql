-- Embedded mode (PGlite) runs every writer in the one process that follows the change log of
-- migration 0036, so that process can know when the log grew without reading it: in a session that
-- asks for it (the setting als.announce_vector_changes = 'on'), each statement that adds entries
-- announces it on the channel als_vector_changes. NOTIFY is delivered once the transaction commits,
-- and not at all when it rolls back. A search then reads the log only when something was announced
-- since the last read began (ChangeLogFollower in packages/core). PostgreSQL sessions leave it off:
-- other processes write there too, and their announcements reach a listener later than their
-- commits are visible, so every search there reads the log; the setting also spares their commits
-- the lock that NOTIFY takes.
CREATE FUNCTION announce_vector_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('als.announce_vector_changes', true) = 'on' THEN
    PERFORM pg_notify('als_vector_changes', '');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER vector_changes_announced AFTER INSERT ON vector_changes
  FOR EACH STATEMENT EXECUTE FUNCTION announce_vector_changes();
