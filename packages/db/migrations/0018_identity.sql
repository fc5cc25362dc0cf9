-- Identity and tenancy: organisations and their projects, members, invitations, API keys, login and
-- governance sessions. Secrets (API keys, session tokens, mailed tokens) are stored as the SHA-256
-- of the whole value, so a copy of the database cannot be replayed as credentials; passwords as
-- argon2id hashes. Times are Unix seconds, as everywhere else.

CREATE TABLE organizations (
  org_id              text    PRIMARY KEY,
  name                text    NOT NULL,
  -- Granted by an operator (scripts/als), never by a member: governance sessions need it.
  governance_entitled boolean NOT NULL DEFAULT false,
  created_at          bigint  NOT NULL
);

CREATE TABLE projects (
  org_id     text   NOT NULL REFERENCES organizations (org_id) ON DELETE CASCADE,
  project_id text   NOT NULL,
  name       text   NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (org_id, project_id)
);

-- The embedded mode's organisation and its project: requests without credentials in AUTH_MODE=local.
INSERT INTO organizations (org_id, name, created_at) VALUES ('local', 'Local', extract(epoch FROM now())::bigint);
INSERT INTO projects (org_id, project_id, name, created_at) VALUES ('local', 'default', 'Default', extract(epoch FROM now())::bigint);

CREATE TABLE members (
  member_id           text    PRIMARY KEY,
  org_id              text    NOT NULL REFERENCES organizations (org_id) ON DELETE CASCADE,
  -- Lowercased; one login per address across the service.
  email               text    NOT NULL UNIQUE,
  -- Null for a member who signs in only through OpenID Connect.
  password_hash       text,
  role                text    NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  email_verified_at   bigint,
  -- Set for members who joined by invitation: they cannot use third-party sign-in (the contract).
  invited             boolean NOT NULL DEFAULT false,
  oidc_issuer         text,
  oidc_subject        text,
  created_at          bigint  NOT NULL,
  UNIQUE (oidc_issuer, oidc_subject)
);
CREATE INDEX members_by_org ON members (org_id, created_at);

-- Single-use tokens sent by mail: email verification and invitations.
CREATE TABLE email_verifications (
  token_hash text   PRIMARY KEY,
  member_id  text   NOT NULL REFERENCES members (member_id) ON DELETE CASCADE,
  expires_at bigint NOT NULL,
  used_at    bigint
);

CREATE TABLE invitations (
  invitation_id text   PRIMARY KEY,
  org_id        text   NOT NULL REFERENCES organizations (org_id) ON DELETE CASCADE,
  email         text   NOT NULL,
  role          text   NOT NULL CHECK (role IN ('admin', 'member')),
  token_hash    text   NOT NULL UNIQUE,
  invited_by    text   REFERENCES members (member_id) ON DELETE SET NULL,
  created_at    bigint NOT NULL,
  expires_at    bigint NOT NULL,
  accepted_at   bigint,
  revoked_at    bigint
);
CREATE INDEX invitations_by_org ON invitations (org_id, created_at);

CREATE TABLE api_keys (
  key_id       text   PRIMARY KEY,
  org_id       text   NOT NULL,
  project_id   text   NOT NULL,
  name         text   NOT NULL,
  access       text   NOT NULL CHECK (access IN ('full', 'limited')),
  -- The displayable start of the key (`als_` and eight characters): how a member names a key to delete it.
  prefix       text   NOT NULL UNIQUE,
  key_hash     text   NOT NULL UNIQUE,
  created_by   text   REFERENCES members (member_id) ON DELETE SET NULL,
  created_at   bigint NOT NULL,
  last_used_at bigint,
  revoked_at   bigint,
  FOREIGN KEY (org_id, project_id) REFERENCES projects (org_id, project_id) ON DELETE CASCADE
);
CREATE INDEX api_keys_by_org ON api_keys (org_id, created_at);

CREATE TABLE login_sessions (
  session_id  text   PRIMARY KEY,
  token_hash  text   NOT NULL UNIQUE,
  member_id   text   NOT NULL REFERENCES members (member_id) ON DELETE CASCADE,
  org_id      text   NOT NULL REFERENCES organizations (org_id) ON DELETE CASCADE,
  -- `governance`: an admin's short session, opened with the password again, for erasure and export.
  kind        text   NOT NULL CHECK (kind IN ('login', 'governance')),
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL,
  revoked_at  bigint
);
CREATE INDEX login_sessions_by_member ON login_sessions (member_id);

-- OpenID Connect sign-ins begun and not yet finished: the state, nonce and PKCE verifier to check the callback against.
CREATE TABLE oidc_sign_ins (
  state         text   PRIMARY KEY,
  nonce         text   NOT NULL,
  code_verifier text   NOT NULL,
  expires_at    bigint NOT NULL
);

-- Evidence of authenticated searches (contract: Authentication 10, search_user_playbooks): one batch
-- per search that served results to a credential, written before the search answers; onboarding
-- counts qualifying API-key searches from it. Unauthenticated (local) searches record nothing.
CREATE TABLE search_evidence (
  org_id          text   NOT NULL,
  project_id      text   NOT NULL,
  evidence_id     text   NOT NULL,
  -- `search.unified` or `userPlaybooks.search`: the endpoint that served.
  route           text   NOT NULL,
  credential_kind text   NOT NULL CHECK (credential_kind IN ('api_key', 'login_session', 'governance_session')),
  -- The API key (key_id) or the member (member_id) that searched.
  principal_id    text   NOT NULL,
  user_id         text,
  -- `profile:<id>`, `user_playbook:<id>` or `agent_playbook:<id>`, in the order served.
  served_ids      text[] NOT NULL,
  created_at      bigint NOT NULL,
  PRIMARY KEY (org_id, project_id, evidence_id)
);
CREATE INDEX search_evidence_by_time ON search_evidence (org_id, project_id, created_at);
