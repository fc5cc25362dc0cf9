import type { Embedder } from "@als/ai";
import type { Database } from "@als/db";

/** What domain functions need from the process; built once by each composition root. */
export interface CoreDeps {
  db: Database;
  embedder: Embedder;
  /** Current time in Unix seconds; tests move it to check expiry. */
  now: () => number;
  /** Unset: the defaults of SearchSettings. */
  search?: SearchSettings;
}

export interface SearchSettings {
  /** Deadline of a unified search in milliseconds; null disables it (operator switch). Default 5000. */
  deadlineMs?: number | null;
  /** Unset: the secret the database holds for this deployment (made on first use). */
  exposureReceiptSecret?: string;
}

export const systemClock = (): number => Math.floor(Date.now() / 1000);
