import { createHash } from "node:crypto";
import { AppError } from "@als/contract";
import { type IdempotencyKeyRecord, idempotencyKeys, type Scope, type Sql } from "@als/db";
import canonicalize from "canonicalize";
import type { CoreDeps } from "../deps.ts";

/** How long a key is kept after its first use (the README states it): a retry within it gets the first answer. */
export const IDEMPOTENCY_KEY_TTL_SECONDS = 24 * 60 * 60;

/** A client's Idempotency-Key on a request: the key, the endpoint, and a digest of what was asked. */
export interface IdempotencyKey {
  key: string;
  procedure: string;
  /** SHA-256 of the parsed input in its canonical JSON form (RFC 8785): key order and spacing do not matter. */
  fingerprint: string;
}

export function idempotencyKeyOf(key: string, procedure: string, input: unknown): IdempotencyKey {
  const fingerprint = createHash("sha256")
    .update(canonicalize(input) ?? "")
    .digest("hex");
  return { key, procedure, fingerprint };
}

/** Another attempt under the same key committed first: the transaction that tried to record it rolls back. */
export class KeyTaken extends Error {
  constructor() {
    super("another attempt committed under this idempotency key first");
    this.name = "KeyTaken";
  }
}

/**
 * Records `key` in the caller's transaction with what the write committed (and its answer, when it
 * is known before the commit); throws KeyTaken, rolling the write back, when another attempt holds it.
 */
export async function recordKeyOrThrow(
  deps: Pick<CoreDeps, "now">,
  tx: Sql,
  scope: Scope,
  key: IdempotencyKey,
  record: { userId: string | null; outcome: Record<string, unknown>; answer?: Record<string, unknown> },
): Promise<void> {
  const now = deps.now();
  const recorded = await idempotencyKeys.recordKey(tx, scope, {
    idempotency_key: key.key,
    procedure: key.procedure,
    fingerprint: key.fingerprint,
    user_id: record.userId,
    outcome: record.outcome,
    answer: record.answer ?? null,
    created_at: now,
    expires_at: now + IDEMPOTENCY_KEY_TTL_SECONDS,
  });
  if (!recorded) throw new KeyTaken();
}

/** A key already used for another request (another endpoint, or another body) answers 422 and does nothing. */
export function refuseOtherRequest(found: Pick<IdempotencyKeyRecord, "procedure" | "fingerprint">, key: IdempotencyKey): void {
  if (found.procedure === key.procedure && found.fingerprint === key.fingerprint) return;
  throw new AppError(
    "idempotency_key_reused",
    `Idempotency-Key '${key.key}' was used for a different request${found.procedure === key.procedure ? " (another body)" : ` (${found.procedure})`}; a new request needs a new key`,
  );
}

/** Keys deleted per statement of a prune: a short transaction each, however many expired at once. */
const PRUNE_BATCH = 1_000;

/** How often a process prunes expired keys: they are ignored once expired, so this only bounds the table. */
export const IDEMPOTENCY_KEY_PRUNE_INTERVAL_MS = 10 * 60_000;

/** Deletes every key expired by now, in batches; returns how many. */
export async function pruneExpiredIdempotencyKeys(deps: Pick<CoreDeps, "db" | "now">): Promise<number> {
  let pruned = 0;
  for (;;) {
    const deleted = await idempotencyKeys.pruneExpiredKeys(deps.db, deps.now(), PRUNE_BATCH);
    pruned += deleted;
    if (deleted < PRUNE_BATCH) return pruned;
  }
}
