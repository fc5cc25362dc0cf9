-- Data-source collections: an activated stream importing its provider's traces into interactions.
--
-- data_source_collections: one per activated stream (it goes with the stream, so deleting the
-- connection stops it). What activation fixed (provider, region, external project, workspace,
-- activated_at) is copied here and never changes. `state`: active, paused or stopped (see
-- collection-status.ts for the names the status shows). `lifecycle_revision` advances on every
-- operation, backfill extension, live-filter edit, mapping promotion and retry.
-- The history backfill pages [history_start, history_end) oldest first; `backfill_cursor` is the
-- provider's cursor after the last page committed (the checkpoint). `backfill_units`: message units
-- the backfill imported, against `backfill_limit` (null: no limit). Live collection pages
-- [live_watermark, live_window_end) the same way, then moves the watermark on.
-- `lease_*`: the step working on it; `next_run_at`: when the step is due again.
CREATE TABLE data_source_collections (
  stream_id           text    PRIMARY KEY REFERENCES data_source_streams (stream_id) ON DELETE CASCADE,
  org_id              text    NOT NULL,
  project_id          text    NOT NULL,
  connection_id       text    NOT NULL,
  provider            text    NOT NULL,
  region              text    NOT NULL,
  external_project_id text    NOT NULL,
  workspace_id        text,
  activated_at        bigint  NOT NULL,
  state               text    NOT NULL CHECK (state IN ('active', 'paused', 'stopped')),
  lifecycle_revision  bigint  NOT NULL,
  mapping_revision    bigint  NOT NULL,
  mapping_definition  jsonb   NOT NULL,
  filters             jsonb   NOT NULL,
  history_start       bigint,
  history_end         bigint,
  backfill_status     text    NOT NULL CHECK (backfill_status IN ('not_requested', 'importing', 'budget_exhausted', 'complete')),
  backfill_cursor     text,
  backfill_pages      bigint  NOT NULL DEFAULT 0,
  backfill_limit      bigint,
  backfill_units      bigint  NOT NULL DEFAULT 0,
  live_watermark      bigint  NOT NULL,
  live_window_end     bigint,
  live_cursor         text,
  live_next_poll_at   bigint  NOT NULL,
  live_polled_at      bigint,
  counts              jsonb   NOT NULL DEFAULT '{}',
  last_error_code     text,
  last_error_message  text,
  last_error_at       bigint,
  next_run_at         bigint  NOT NULL,
  lease_token         text,
  lease_expires_at    bigint,
  created_at          bigint  NOT NULL,
  updated_at          bigint  NOT NULL,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX data_source_collections_runnable ON data_source_collections (next_run_at) WHERE state = 'active';

-- A provider's rate limit holds for every read of the connection (samples, backfill, live):
-- reads wait until `cooldown_until` (Unix seconds).
ALTER TABLE data_source_connections ADD COLUMN cooldown_until bigint;

-- data_source_receipts: the deduplication receipt of one imported (or suppressed) external trace,
-- written in the transaction that publishes it, so a re-run or a crash never imports it twice. Keyed
-- by the provider's project and trace, not the stream: they outlive the connection (rule 3), and a
-- reconnect of the same project finds them. `request_id` null: suppressed by an erasure (user_id is
-- then cleared too).
CREATE TABLE data_source_receipts (
  org_id              text    NOT NULL,
  project_id          text    NOT NULL,
  provider            text    NOT NULL,
  external_project_id text    NOT NULL,
  external_trace_id   text    NOT NULL,
  stream_id           text    NOT NULL,
  request_id          text,
  user_id             text,
  session_id          text,
  rule                text,
  mapping_revision    bigint,
  phase               text    NOT NULL CHECK (phase IN ('backfill', 'live', 'retry', 'suppressed')),
  message_units       integer NOT NULL,
  imported_at         bigint  NOT NULL,
  PRIMARY KEY (org_id, project_id, provider, external_project_id, external_trace_id),
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX data_source_receipts_of_stream ON data_source_receipts (org_id, project_id, stream_id, imported_at DESC);
CREATE INDEX data_source_receipts_of_user ON data_source_receipts (org_id, project_id, user_id) WHERE user_id IS NOT NULL;

-- data_source_held: traces a collection could not import (no user, no usable answer, mapping
-- errors, oversized), with why, until a retry imports or discards them. `record`: the provider's
-- root record (null when oversized). Pending payloads: they go with the connection (rule 3).
-- `status` queued: a retry accepted it and the collection step imports it.
CREATE TABLE data_source_held (
  stream_id         text    NOT NULL REFERENCES data_source_collections (stream_id) ON DELETE CASCADE,
  external_trace_id text    NOT NULL,
  org_id            text    NOT NULL,
  project_id        text    NOT NULL,
  started_at        bigint  NOT NULL,
  phase             text    NOT NULL CHECK (phase IN ('backfill', 'live', 'retry')),
  reasons           jsonb   NOT NULL,
  rules             jsonb   NOT NULL,
  user_id           text,
  record            jsonb,
  status            text    NOT NULL CHECK (status IN ('held', 'queued')),
  held_at           bigint  NOT NULL,
  PRIMARY KEY (stream_id, external_trace_id)
);
CREATE INDEX data_source_held_page ON data_source_held (stream_id, held_at, external_trace_id);
CREATE INDEX data_source_held_of_user ON data_source_held (org_id, project_id, user_id) WHERE user_id IS NOT NULL;
