/**
 * Why the storage could not serve a call (StorageUnavailableError carries it; the client gets 503):
 * `connection` lost, refused or reset; `unavailable` the database is missing, refuses sessions or
 * is starting or stopping; `read_only` it takes no writes (a standby, default_transaction_read_only);
 * `disk_full` it cannot grow its files; `resources` another resource ran out (memory, connection
 * slots); `timeout` no answer within the bound of the call (statement_timeout, no pooled connection
 * in time, no connection opened in time, or none at all).
 */
export type StorageFailureReason = "connection" | "unavailable" | "read_only" | "disk_full" | "resources" | "timeout";

/** Socket errors of Node and Bun, and postgres.js's own codes for a connection it lost or closed. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
]);

const REASON_OF_CODE: Record<string, StorageFailureReason> = {
  // postgres.js gave up opening a connection (connect_timeout).
  CONNECT_TIMEOUT: "timeout",
  // query_canceled: statement_timeout, or a cancel of ours.
  "57014": "timeout",
  // lock_not_available: lock_timeout.
  "55P03": "timeout",
  // read_only_sql_transaction.
  "25006": "read_only",
  EROFS: "read_only",
  // disk_full; ENOSPC where the engine writes its files itself (PGlite).
  "53100": "disk_full",
  ENOSPC: "disk_full",
  // invalid_catalog_name: the database does not exist.
  "3D000": "unavailable",
  // cannot_connect_now (starting up, shutting down), database_dropped.
  "57P03": "unavailable",
  "57P04": "unavailable",
  // invalid_authorization_specification, invalid_password: this process may not use the database.
  "28000": "unavailable",
  "28P01": "unavailable",
  // idle_in_transaction_session_timeout ended the session.
  "25P03": "connection",
};

/**
 * The one classification of storage errors, for PostgreSQL (SQLSTATE), postgres.js and PGlite:
 * the reason when `error` means the storage cannot serve now (retrying later may work), undefined
 * when it is a fault of the statement (a bug, a constraint) that must not be reported as an outage.
 * SQLSTATE classes 08 (connection exception) and 57P (operator intervention: pg_terminate_backend,
 * shutdown, crash) are connection losses; class 53 (insufficient resources) is resources unless it
 * is 53100 (disk full).
 */
export function classifyStorageError(error: unknown): StorageFailureReason | undefined {
  if (!error || typeof error !== "object") return undefined;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof code !== "string") return undefined;
  if (CONNECTION_CODES.has(code)) return "connection";
  const reason = REASON_OF_CODE[code];
  if (reason) return reason;
  if (code.startsWith("08") || code.startsWith("57P")) return "connection";
  if (code.startsWith("53")) return "resources";
  // object_not_in_prerequisite_state is also what a misused sequence or cursor raises: only a FATAL
  // one, which ends the session (datallowconn = false: "not currently accepting connections"), is
  // the database refusing us.
  if (code === "55000" && severity === "FATAL") return "unavailable";
  return undefined;
}
