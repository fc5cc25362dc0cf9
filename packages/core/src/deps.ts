import type { Embedder } from "@als/ai";
import type { Database } from "@als/db";

/** What domain functions need from the process; built once by each composition root. */
export interface CoreDeps {
  db: Database;
  embedder: Embedder;
  /** Current time in Unix seconds; tests move it to check expiry. */
  now: () => number;
}

export const systemClock = (): number => Math.floor(Date.now() / 1000);
