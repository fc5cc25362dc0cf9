-- The subject write barrier of a publish is checked once, on its request row: interactions,
-- learning_users and learning_cursors are only ever written by the publish transaction that also
-- inserts the request (publishInteractions), and the request's trigger holds the subject's lock
-- until that transaction ends. Their own triggers only repeated the check, and cost a quarter of
-- the publish throughput at concurrency 16 (bench/publish.ts, full mode: 558 publishes/s with them,
-- 726 without, 780 with no barrier at all). A new writer of these tables that
-- inserts no request must add its trigger back; the erasure's final check (every user_id column of
-- the catalog) would otherwise fail the erasure with residual_subject_data rather than miss a row.
DROP TRIGGER interactions_subject_barrier ON interactions;
DROP TRIGGER learning_users_subject_barrier ON learning_users;
DROP TRIGGER learning_cursors_subject_barrier ON learning_cursors;
