import type { Database } from "@als/db";

/** What identity needs of the process: the database and the clock (Unix seconds; tests move it). */
export interface IdentityDeps {
  db: Database;
  now: () => number;
}
