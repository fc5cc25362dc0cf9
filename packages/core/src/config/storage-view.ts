import type { StorageOptions } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Where the data lives, safe to show the operator's own callers (whoami, publish): a PostgreSQL URL
 * without its credentials and query string (which may carry a password too), or PGlite's data
 * directory. Null when the process was not told its storage settings, and for the tenants of a
 * hosted service (`hosted`), who are never shown a host, a database name or a path of the server.
 */
export function maskedStorageLabel(deps: CoreDeps, hosted: boolean): string | null {
  return deps.storage && !hosted ? labelOf(deps.storage) : null;
}

function labelOf(storage: StorageOptions): string {
  if (storage.kind === "pglite") return storage.dataDir ?? "in memory";
  const url = new URL(storage.url);
  const credentials = url.username || url.password ? "***@" : "";
  return `${url.protocol}//${credentials}${url.host}${url.pathname}`;
}

/** The raw storage settings (my_config), credentials included: secret. Null when the process was not told them. */
export function rawStorageSettings(deps: CoreDeps): { url: string } | { data_dir: string | null } | null {
  if (!deps.storage) return null;
  return deps.storage.kind === "postgres" ? { url: deps.storage.url } : { data_dir: deps.storage.dataDir ?? null };
}
