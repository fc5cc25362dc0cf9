/** A connection or an open transaction: plain SQL text with $1.. parameters, rows as objects. */
export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** The one interface both storage engines implement; query modules only ever see `Sql`. */
export interface Database extends Sql {
  readonly kind: "postgres" | "pglite";
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Raised when the storage engine cannot be reached; it answers 503 storage_unavailable. */
export class StorageUnavailableError extends Error {
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "storage_unavailable";
  constructor(cause: unknown) {
    super("storage is unavailable", { cause });
    this.name = "StorageUnavailableError";
  }
}
