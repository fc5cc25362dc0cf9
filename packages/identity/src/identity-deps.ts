import type { Database } from "@als/db";
import type { KeyUses } from "./resolve-credential.ts";

/** What identity needs of the process: the database and the clock (Unix seconds; tests move it). */
export interface IdentityDeps {
  db: Database;
  now: () => number;
  /** The app's memory of the API key uses it wrote; unset, every use sends the write (which changes the row at most once a minute). */
  keyUses?: KeyUses;
}
