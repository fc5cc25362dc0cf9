import { randomBytes } from "node:crypto";
import { type Database, serviceSecrets } from "@als/db";
import { processDatabaseOf } from "./process-database.ts";

const cached = new WeakMap<Database, Map<string, Promise<string>>>();

/**
 * The deployment secret `name` that the database holds, made on first use: every process sharing
 * the database gets the same value, and it survives restarts. Read once per process and name.
 */
export function storedSecret(db: Database, name: string): Promise<string> {
  const processDb = processDatabaseOf(db);
  const secrets = cached.get(processDb) ?? new Map<string, Promise<string>>();
  cached.set(processDb, secrets);
  let secret = secrets.get(name);
  if (!secret) {
    // On the process's database, not a search's view of it: the one read serves every later caller,
    // so one search's deadline must not fail it.
    secret = serviceSecrets.getOrCreateSecret(processDb, name, randomBytes(32).toString("base64url"));
    secret.catch(() => secrets.delete(name));
    secrets.set(name, secret);
  }
  return secret;
}
