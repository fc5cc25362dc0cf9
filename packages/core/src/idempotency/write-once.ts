import type { Scope, Sql } from "@als/db";
import { idempotencyKeys } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { type IdempotencyKey, recordKeyOrThrow, refuseOtherRequest } from "./idempotency-key.ts";

/**
 * Records the key and the answer in the write's transaction (see writeOnce); undefined without a key.
 * `userId`, when the write learns it only in its transaction: the user the write is about.
 */
export type RecordAnswer<A> = ((tx: Sql, answer: A, userId?: string) => Promise<void>) | undefined;

/**
 * A write whose whole answer is known inside its transaction (an add_* of records), made at most once
 * per idempotency key: `write` calls `record` in its transaction with the answer it will give, so the
 * key and its answer commit with the write or not at all. A retry under the key gets that answer
 * again; a retry racing the first attempt waits for its transaction (PostgreSQL holds the key's row,
 * or the rows the write changes) and answers as it. `userId`: the user the write is about, for the key's erasure (null: several or
 * none, or one `write` names when it records).
 */
export async function writeOnce<A extends object>(
  deps: CoreDeps,
  scope: Scope,
  key: IdempotencyKey | undefined,
  userId: string | null,
  write: (record: RecordAnswer<A>) => Promise<A>,
): Promise<A> {
  if (!key) return write(undefined);
  const earlier = await answerUnder<A>(deps, scope, key);
  if (earlier) return earlier;
  try {
    return await write((tx, answer, writtenFor) =>
      recordKeyOrThrow(deps, tx, scope, key, { userId: writtenFor ?? userId, outcome: {}, answer: answer as Record<string, unknown> }),
    );
  } catch (error) {
    // An attempt racing the first may lose to it on the key (KeyTaken) or on the write's own check
    // (a 409 for the stream the first one activated): the first's committed answer is its answer too.
    const first = await answerUnder<A>(deps, scope, key);
    if (!first) throw error;
    return first;
  }
}

async function answerUnder<A>(deps: CoreDeps, scope: Scope, key: IdempotencyKey): Promise<A | undefined> {
  const found = await idempotencyKeys.findKey(deps.db, scope, key.key, deps.now());
  if (!found) return undefined;
  refuseOtherRequest(found, key);
  return (found.answer ?? undefined) as A | undefined;
}
