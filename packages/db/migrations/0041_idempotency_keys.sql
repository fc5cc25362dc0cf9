-- Idempotency-Key (the IETF HTTP API draft): what a write made under a client's key, so that a retry
-- with the same key and the same request gets the first answer again instead of a second write. A
-- publish records its key in the transaction that stores the request, so the row exists exactly when
-- the request was committed, whatever became of the process that answered it. Kept per organisation
-- and project until expires_at (pruned after), and erased with the user (user_id).
CREATE TABLE idempotency_keys (
  org_id          text   NOT NULL,
  project_id      text   NOT NULL,
  idempotency_key text   NOT NULL,
  -- The endpoint (procedure) and a digest of its parsed input: the same key on another request is refused.
  procedure       text   NOT NULL,
  fingerprint     text   NOT NULL,
  user_id         text,
  -- What the write committed, enough to answer again when the first attempt ended before answering.
  outcome         jsonb  NOT NULL,
  -- The answer sent, once there was one (replayed as it is).
  answer          jsonb,
  created_at      bigint NOT NULL,
  expires_at      bigint NOT NULL,
  PRIMARY KEY (org_id, project_id, idempotency_key)
);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
CREATE INDEX idempotency_keys_by_user ON idempotency_keys (org_id, project_id, user_id) WHERE user_id IS NOT NULL;
