import { apiKeys, loginSessions } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import type { ApiKeyPrincipal, SessionPrincipal } from "./principal.ts";
import { hashSecret, TOKEN_PREFIXES } from "./secret-tokens.ts";

/**
 * The API key or live session a bearer token stands for, or null when it is unknown, revoked or
 * expired. The prefix picks the table, so a token costs one indexed lookup of its hash.
 */
export async function resolveCredential(deps: IdentityDeps, token: string): Promise<ApiKeyPrincipal | SessionPrincipal | null> {
  const tokenHash = hashSecret(token);
  if (token.startsWith(TOKEN_PREFIXES.login) || token.startsWith(TOKEN_PREFIXES.governance)) {
    const session = await loginSessions.findLiveSessionByHash(deps.db, tokenHash, deps.now());
    if (session === null) return null;
    return {
      kind: "session",
      sessionKind: session.kind,
      sessionId: session.session_id,
      memberId: session.member_id,
      orgId: session.org_id,
      role: session.role,
      email: session.email,
      governanceEntitled: session.governance_entitled,
    };
  }
  if (token.startsWith(TOKEN_PREFIXES.apiKey)) {
    const key = await apiKeys.findLiveApiKeyByHash(deps.db, tokenHash);
    if (key === null) return null;
    await recordKeyUse(deps, key.key_id);
    return { kind: "api_key", keyId: key.key_id, orgId: key.org_id, projectId: key.project_id, access: key.access };
  }
  return null;
}

const MAX_REMEMBERED_KEYS = 10_000;

/**
 * When a process last wrote each key's last_used_at; bounded, as a cache it may forget. Built once
 * by the app (IdentityDeps.keyUses). last_used_at moves at most once a minute (apiKeys.touchApiKey);
 * remembering the last write spares the hot path of search and publish even the statement that
 * finds nothing to change.
 */
export class KeyUses {
  readonly #lastWritten = new Map<string, number>();

  /** Whether a use of `keyId` at `now` is worth writing: not within a minute of the last write. */
  due(keyId: string, now: number): boolean {
    const last = this.#lastWritten.get(keyId);
    return last === undefined || now - last >= 60;
  }

  /** The use of `keyId` at `now` is written. */
  written(keyId: string, now: number): void {
    if (this.#lastWritten.size >= MAX_REMEMBERED_KEYS) this.#lastWritten.clear();
    this.#lastWritten.set(keyId, now);
  }
}

async function recordKeyUse(deps: IdentityDeps, keyId: string): Promise<void> {
  const now = deps.now();
  if (deps.keyUses && !deps.keyUses.due(keyId, now)) return;
  await apiKeys.touchApiKey(deps.db, keyId, now);
  deps.keyUses?.written(keyId, now);
}
