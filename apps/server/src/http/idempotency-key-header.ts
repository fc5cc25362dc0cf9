import { AppError, type Endpoint } from "@als/contract";
import { type IdempotencyKey, idempotencyKeyOf } from "@als/core";

/** The header of the IETF HTTP API draft "The Idempotency-Key HTTP Header Field". */
export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";

const MAX_KEY_LENGTH = 255;

/**
 * The key of a request to an endpoint that takes one (`idempotencyKey` in its declaration), with the
 * fingerprint of its parsed input; undefined without the header. The draft sends the key as a
 * structured-field string (`"8e03978e-..."`); a bare token is taken too. Elsewhere the header is
 * ignored, as the draft lets a server do.
 */
export function idempotencyKeyFrom(endpoint: Endpoint, header: string | null, input: unknown): IdempotencyKey | undefined {
  if (!endpoint.idempotencyKey || header === null) return undefined;
  const trimmed = header.trim();
  const quoted = /^"([^"\\]*)"$/.exec(trimmed);
  const key = quoted ? quoted[1]! : trimmed;
  if (key.length === 0 || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key) || (!quoted && key.includes('"'))) {
    throw AppError.validation([
      {
        loc: ["header", "Idempotency-Key"],
        msg: `must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters, bare or as a quoted string`,
        type: "value_error",
      },
    ]);
  }
  return idempotencyKeyOf(key, endpoint.procedure, input);
}
