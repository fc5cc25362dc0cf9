import { randomBytes } from "node:crypto";
import { type Database, serviceSecrets } from "@als/db";

/**
 * The deployment secrets the database holds, made on first use: every process sharing the database
 * gets the same value, and it survives restarts. Each is read once per process (ProcessServices.secrets).
 */
export class StoredSecrets {
  private readonly secrets = new Map<string, Promise<string>>();

  /** `database`: the process's own, not a search's view of it: one read serves every later caller, so one search's deadline must not fail it. */
  constructor(private readonly database: Database) {}

  /** The secret `name`; a failed read is forgotten, so the next caller reads again. */
  get(name: string): Promise<string> {
    let secret = this.secrets.get(name);
    if (!secret) {
      secret = serviceSecrets.getOrCreateSecret(this.database, name, randomBytes(32).toString("base64url"));
      secret.catch(() => this.secrets.delete(name));
      this.secrets.set(name, secret);
    }
    return secret;
  }
}
