-- Keeps each row's vector in the row. A vector(384) takes 1,540 bytes, so a playbook's row passed
-- the 2 kB at which PostgreSQL starts moving its largest values out: the vector went to the TOAST
-- table (123 MB of the user playbooks' 209 at 100k rows), and every distance computed from a row
-- fetched it from there first. A per-user search compares each of the user's rows, and its
-- statement computes each distance twice (the similarity floor, the order): 608 buffers and 1.1 ms
-- for one user's 100 playbooks. Rows up to 4 kB now stay whole (toast_tuple_target), and in a
-- larger row the text is moved out before the vector is (STORAGE MAIN).
--
-- Both settings apply to rows written from now on; a row written before keeps its vector outside
-- until it is written again (re-embedding rewrites it). `VACUUM FULL <table>` rewrites every row at
-- once, holding the table's lock while it does and rebuilding its indexes.
ALTER TABLE profiles SET (toast_tuple_target = 4080);
ALTER TABLE profiles ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE user_playbooks SET (toast_tuple_target = 4080);
ALTER TABLE user_playbooks ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE agent_playbooks SET (toast_tuple_target = 4080);
ALTER TABLE agent_playbooks ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE interactions SET (toast_tuple_target = 4080);
ALTER TABLE interactions ALTER COLUMN embedding SET STORAGE MAIN;
