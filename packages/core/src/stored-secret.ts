import { randomBytes } from "node:crypto";
import { type Database, serviceSecrets } from "@als/db";

const cached = new WeakMap<Database, Map<string, Promise<string>>>();

/**
 * The deployment secret `name` that the database holds, made on first use: every process sharing
 * the database gets the same value, and it survives restarts. Read once per process and name.
 */
export function storedSecret(db: Database, name: string): Promise<string> {
  const secrets = cached.get(db) ?? new Map<string, Promise<string>>();
  cached.set(db, secrets);
  let secret = secrets.get(name);
  if (!secret) {
    secret = serviceSecrets.getOrCreateSecret(db, name, randomBytes(32).toString("base64url"));
    secret.catch(() => secrets.delete(name));
    secrets.set(name, secret);
  }
  return secret;
}
