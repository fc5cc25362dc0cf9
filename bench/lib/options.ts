/** The command-line values the benches share, parsed with the same messages everywhere. */

import { postgresServerUrl, type StorageMode } from "./seed.ts";

/** `--name` as an integer of at least `min`; `_` may group digits (`100_000`). */
export function integerOption(name: string, raw: string, min: number): number {
  const value = Number(raw.replaceAll("_", ""));
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} needs an integer ≥ ${min}, got ${raw}`);
  return value;
}

/** `--modes embedded,full` as the storage modes it names. */
export function storageModesOption(raw: string): StorageMode[] {
  const modes = raw
    .split(",")
    .map((mode) => mode.trim())
    .filter(Boolean);
  for (const mode of modes) if (mode !== "embedded" && mode !== "full") throw new Error(`--modes: ${mode} is not one of embedded, full`);
  return modes as StorageMode[];
}

/**
 * The PostgreSQL server of a bench that runs full mode: `--postgres-url`, else the URLs the test
 * suite and the server use (a bench is its own process: they are fair defaults here), else the
 * repository's own server (infra/postgres.sh). Undefined when no mode needs one.
 */
export function postgresUrlOption(given: string | undefined, modes: StorageMode[], root: string): string | undefined {
  if (!modes.includes("full")) return undefined;
  return given ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? postgresServerUrl(root);
}
