const CONNECTION_ERROR_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT"]);
// SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown, crash).
const UNAVAILABLE_SQLSTATE = /^(08|57P)/;

export function isConnectionFailure(error: unknown): boolean {
  if (!error || typeof error !== "object") return false;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code));
}
