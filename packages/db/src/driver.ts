import type { PoolStats } from "./pool-stats.ts";
import { classifyStorageError, type StorageFailureReason } from "./storage-failure.ts";

/** A connection or an open transaction: plain SQL text with $1.. parameters, rows as objects. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

export interface TransactionOptions {
  /**
   * Once aborted, the transaction sends no further statement and no COMMIT: its next query rejects
   * with the signal's reason and it rolls back. A statement already sent still runs, so a COMMIT in
   * flight may still commit.
   */
  signal?: AbortSignal;
}

/** The one interface both storage engines implement; query modules only ever see `Sql`. */
export interface Database extends Sql {
  readonly kind: "postgres" | "pglite";
  /** PostgreSQL: what its connection pool is doing (see withPoolStats). PGlite is one engine in the process, not a pool. */
  readonly pool?: PoolStats;
  transaction<T>(work: (tx: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * PGlite only: calls `heard` with each notification on `channel` that its one session commits,
   * before the statement or transaction that committed it answers; resolves to what stops it.
   * PostgreSQL has none: other processes commit there too, and their notifications arrive later
   * than their commits are visible (listenForNotifications hears them on a connection of its own).
   */
  listenInProcess?(channel: string, heard: (payload: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * How long a call may wait on the storage; past a bound it fails with StorageUnavailableError
 * (reason `timeout`) instead of hanging for as long as a network partition lasts.
 */
export interface StorageTimeouts {
  /** Opening a PostgreSQL connection: TCP, TLS and authentication. */
  connectMs: number;
  /** Waiting for a pooled connection (PGlite: for the engine) before a statement or a transaction starts. */
  acquireMs: number;
  /** One statement on the server (PostgreSQL's statement_timeout, lock waits included). */
  statementMs: number;
}

export const DEFAULT_STORAGE_TIMEOUTS: StorageTimeouts = { connectMs: 5_000, acquireMs: 5_000, statementMs: 30_000 };

/** Raised when the storage cannot serve now (see StorageFailureReason); it answers 503 storage_unavailable. */
export class StorageUnavailableError extends Error {
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "storage_unavailable";
  readonly reason: StorageFailureReason;
  constructor(cause: unknown, reason: StorageFailureReason = classifyStorageError(cause) ?? "connection") {
    super(`storage is unavailable (${reason})`, { cause });
    this.name = "StorageUnavailableError";
    this.reason = reason;
  }
}

/**
 * Raised when a write names a user whose erasure is under way (the subject write barrier of
 * migration 0021, SQLSTATE ALS01): the transaction rolled back, nothing of it was written. It
 * answers 409 erasure_in_progress.
 */
export class ErasureInProgressError extends Error {
  readonly errorCode = "erasure_in_progress";
  constructor(cause: unknown) {
    super("the user is being erased; nothing of them is written until the erasure completes", { cause });
    this.name = "ErasureInProgressError";
  }
}

const ERASURE_BARRIER_SQLSTATE = "ALS01";

/**
 * What a failed call of either driver throws: a StorageUnavailableError when `error` is a storage
 * failure (see classifyStorageError), an ErasureInProgressError for the subject write barrier, else
 * `error` itself.
 */
export function asStorageError(error: unknown): unknown {
  if (error instanceof StorageUnavailableError || error instanceof ErasureInProgressError) return error;
  if ((error as { code?: unknown } | null)?.code === ERASURE_BARRIER_SQLSTATE) return new ErasureInProgressError(error);
  const reason = classifyStorageError(error);
  return reason ? new StorageUnavailableError(error, reason) : error;
}

/** The StorageUnavailableError of a call that got no answer within `ms`. */
export function storageTimeout(what: string, ms: number): StorageUnavailableError {
  return new StorageUnavailableError(new Error(`${what} within ${ms} ms`), "timeout");
}
