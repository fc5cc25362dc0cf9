import { createHash, randomBytes } from "node:crypto";

/**
 * Every credential the service hands out is a random value with a kind prefix, so the resolver
 * knows which table to look in and a leaked value is recognisable in logs and secret scanners:
 * `als_<8>_<secret>` API keys, `alss_` login sessions, `alsg_` governance sessions, `alst_` mailed
 * single-use tokens. Only the SHA-256 of the whole value is stored: a fast hash is enough for
 * 256 random bits, and it keeps resolution to one indexed lookup.
 */
export const TOKEN_PREFIXES = { apiKey: "als_", login: "alss_", governance: "alsg_", mailed: "alst_" } as const;

const randomText = (bytes: number) => randomBytes(bytes).toString("base64url");

export function hashSecret(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** A new API key and the prefix it is listed and deleted by (`als_` + 8 characters, shown with the key). */
export function newApiKeyValue(): { value: string; prefix: string } {
  // base64url may start the 8 characters with `-` or `_`; the prefix stays unambiguous either way.
  const prefix = `${TOKEN_PREFIXES.apiKey}${randomBytes(6).toString("hex").slice(0, 8)}`;
  return { value: `${prefix}_${randomText(32)}`, prefix };
}

export function newSessionToken(kind: "login" | "governance"): string {
  return `${TOKEN_PREFIXES[kind]}${randomText(32)}`;
}

export function newMailedToken(): string {
  return `${TOKEN_PREFIXES.mailed}${randomText(32)}`;
}

/** A short random id for rows (`mem_…`, `key_…`, `ses_…`). */
export function newId(kind: string): string {
  return `${kind}_${randomBytes(9).toString("base64url")}`;
}
