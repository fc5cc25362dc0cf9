import type { Database } from "./driver.ts";
import { StorageUnavailableError } from "./driver.ts";
import type { StorageFailureReason } from "./storage-failure.ts";

/** What a connection pool is doing now, read when metrics are scraped (see openPostgres). */
export interface PoolStats {
  /** The most connections the pool opens. */
  readonly max: number;
  /** Statements and transactions of ours holding a connection now. */
  inUse(): number;
  /** Those waiting for a connection now (acquireMs bounds each wait). */
  waiting(): number;
  /** StorageUnavailableErrors thrown by the pool's calls since it opened, by reason. */
  readonly failures: Readonly<Partial<Record<StorageFailureReason, number>>>;
}

/**
 * `db` with its pool's stats (Database.pool) and each StorageUnavailableError it throws counted
 * by reason: the one place both a statement's and a transaction's failures pass through.
 * `holding` lists the calls under way, each saying whether it holds a connection yet.
 */
export function withPoolStats(db: Database, max: number, holding: ReadonlySet<() => boolean>): Database {
  const failures: Partial<Record<StorageFailureReason, number>> = {};
  const counted = <T>(call: Promise<T>): Promise<T> =>
    call.catch((error: unknown) => {
      if (error instanceof StorageUnavailableError) failures[error.reason] = (failures[error.reason] ?? 0) + 1;
      throw error;
    });
  const count = (held: boolean) => {
    let n = 0;
    for (const holds of holding) if (holds() === held) n++;
    return n;
  };
  return {
    kind: db.kind,
    pool: { max, inUse: () => count(true), waiting: () => count(false), failures },
    query: (text, params) => counted(db.query(text, params)),
    exec: (script) => counted(db.exec(script)),
    transaction: (work, options) => counted(db.transaction(work, options)),
    close: () => db.close(),
  };
}
