-- GET /api/get_operation_status reads the latest generation run of a kind in a project. created_at
-- is in whole seconds, so two runs of one second would tie: created_order is the order of creation.
ALTER TABLE generation_runs ADD COLUMN created_order bigint GENERATED ALWAYS AS IDENTITY;
CREATE INDEX generation_runs_latest ON generation_runs (org_id, project_id, extractor, created_order DESC);
