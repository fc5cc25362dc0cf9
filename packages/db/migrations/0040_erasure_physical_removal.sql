-- An erasure's deletes leave the subject's bytes behind: dead tuples and index entries in the table
-- files, old rows in the planner's statistics, and the WAL. After its rows are gone (status
-- succeeded) an operation waits in phase 'physical_removal' for a pass that vacuums the tables the
-- erasures wrote, re-analyzes them and retires the WAL; the pass covers every operation waiting
-- and stamps physically_removed_at on each.
ALTER TABLE purge_operations DROP CONSTRAINT purge_operations_phase_check;
ALTER TABLE purge_operations ADD CONSTRAINT purge_operations_phase_check
  CHECK (phase IN ('delete', 'check', 'audit', 'physical_removal', 'done'));
ALTER TABLE purge_operations ADD COLUMN physically_removed_at bigint;
-- Erasures completed before the pass existed left their bytes too: the first pass covers them.
UPDATE purge_operations SET phase = 'physical_removal' WHERE status = 'succeeded' AND phase = 'done';
CREATE INDEX purge_operations_awaiting_physical_removal ON purge_operations (purge_id) WHERE phase = 'physical_removal';

-- One pass at a time across every process (VACUUM of a table waits for another's); the row also
-- keeps when the last pass ended, which spaces passes so that erasures close together share one,
-- and how long it took (what the operator's bound on the bytes' lifetime is made of).
CREATE TABLE physical_removal_lease (
  only_row         boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  lease_token      text,
  lease_expires_at bigint  NOT NULL DEFAULT 0,
  last_finished_at bigint  NOT NULL DEFAULT 0,
  last_duration_ms integer
);
INSERT INTO physical_removal_lease DEFAULT VALUES;
