import type { Settings } from "@als/core";
import { type Database, openDatabase } from "@als/db";
import { CliError } from "./cli-error.ts";

/** An embedded server answers /health in milliseconds; one that takes longer is busy, not absent. */
const HEALTH_PROBE_TIMEOUT_MS = 2_000;

/**
 * The server's database, opened and migrated as the server opens it (openDatabase). In embedded
 * mode it first makes sure no server holds the same PGlite directory: PGlite has no lock of its own
 * and the server writes no lock file, so two processes writing one directory would corrupt it.
 */
export async function openOperatorDatabase(settings: Pick<Settings, "storage" | "host" | "port">, progress: (line: string) => void): Promise<Database> {
  const { storage } = settings;
  if (storage.kind === "pglite") {
    await refuseWhileEmbeddedServerRuns(settings, progress);
    progress(`opening the embedded database (PGlite) in ${storage.dataDir} and bringing its schema up to date`);
  } else {
    progress(`opening PostgreSQL at ${withoutCredentials(storage.url)} and bringing its schema up to date`);
  }
  return openDatabase(storage);
}

/**
 * Asks GET /health where the server listens (HOST and PORT, as the server reads them). Nothing
 * listening there is the only answer that lets the CLI open PGlite; a server on PostgreSQL is
 * another database, so it only earns a note. Anything else, even a listener that does not answer,
 * may be the embedded server: refusing costs a restart, opening would risk the data.
 */
async function refuseWhileEmbeddedServerRuns(settings: Pick<Settings, "host" | "port">, progress: (line: string) => void): Promise<void> {
  const origin = `http://${probeHost(settings.host)}:${settings.port}`;
  const stopFirst = "stop it first (Ctrl-C in scripts/serve), then run als again: PGlite must not be opened by two processes at once";
  let response: Response;
  try {
    response = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(HEALTH_PROBE_TIMEOUT_MS) });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ConnectionRefused" || code === "ECONNREFUSED") return;
    const why = error instanceof Error && error.name === "TimeoutError" ? `did not answer GET /health within ${HEALTH_PROBE_TIMEOUT_MS} ms` : String(error);
    throw new CliError(`something listens at ${origin} (HOST, PORT) and ${why}; if it is the embedded server, ${stopFirst}`);
  }
  const health = (await response.json().catch(() => null)) as { storage?: unknown } | null;
  if (health?.storage === "postgres") {
    progress(`note: the server at ${origin} runs on PostgreSQL, but DATABASE_URL is not set here: this works on the embedded database`);
    return;
  }
  throw new CliError(`a server answers at ${origin} (GET /health: ${response.status}) and may hold the embedded database; ${stopFirst}`);
}

/** Where to reach a server bound to HOST: a wildcard address is reached on loopback. */
function probeHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::" || host === "[::]") return "[::1]";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** host:port/database of a connection URL: its user and password never reach the terminal. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    return "DATABASE_URL";
  }
}
