/** The command-line values the benches share, parsed with the same messages everywhere. */

import type { StorageMode } from "./seed.ts";

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
