-- Sign-in limits kept in the database, so that every API process counts the same attempts: N
-- processes behind a balancer allow what one allows.

-- A token bucket per client address for the public endpoints and every password check (log in,
-- governance re-authentication, password change). Rows whose bucket is full carry no information
-- and are pruned as new addresses arrive.
CREATE TABLE sign_in_address_buckets (
  client_address text             PRIMARY KEY,
  tokens         double precision NOT NULL,
  refilled_at    double precision NOT NULL
);
CREATE INDEX sign_in_address_buckets_by_refill ON sign_in_address_buckets (refilled_at);

-- Wrong passwords typed for a member, from which address: the account's lock is counted from them.
CREATE TABLE sign_in_failures (
  member_id      text   NOT NULL REFERENCES members (member_id) ON DELETE CASCADE,
  client_address text   NOT NULL,
  failed_at      bigint NOT NULL
);
CREATE INDEX sign_in_failures_by_member ON sign_in_failures (member_id, failed_at);

-- Addresses a member signed in from with the right password: someone else's guessing from other
-- addresses never locks the member out of these.
CREATE TABLE sign_in_known_addresses (
  member_id      text   NOT NULL REFERENCES members (member_id) ON DELETE CASCADE,
  client_address text   NOT NULL,
  signed_in_at   bigint NOT NULL,
  PRIMARY KEY (member_id, client_address)
);

-- The login session a governance session was opened from: logging out ends both.
ALTER TABLE login_sessions ADD COLUMN opened_by text REFERENCES login_sessions (session_id) ON DELETE CASCADE;
CREATE INDEX login_sessions_by_opener ON login_sessions (opened_by) WHERE opened_by IS NOT NULL;
