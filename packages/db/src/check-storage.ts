import { statfs } from "node:fs/promises";
import { asStorageError, type Database, StorageUnavailableError, storageTimeout } from "./driver.ts";

/** Thrown inside the probe's transaction so that it rolls back; never leaves checkStorage. */
const ROLL_BACK = Symbol("roll back the storage probe");

/**
 * Whether the storage takes a write now, answered within `timeoutMs`: resolves when it does, throws
 * StorageUnavailableError (reason connection, unavailable, read_only, disk_full, resources or
 * timeout) when it does not. The probe writes in a transaction it rolls back, so nothing is kept.
 * On PostgreSQL it truncates and refills storage_probe: the new row lands in a new file whose first
 * page must be allocated on the database's disk, so a full disk answers 53100 here, not only when a
 * table happens to need a page. On PGlite it updates the row in place (no catalog change per probe:
 * PGlite runs no autovacuum).
 */
export async function checkStorage(db: Database, timeoutMs: number): Promise<void> {
  const expiry = new AbortController();
  const timer = setTimeout(() => expiry.abort(storageTimeout("no answer to the storage probe", timeoutMs)), timeoutMs);
  const expired = new Promise<never>((_, reject) => expiry.signal.addEventListener("abort", () => reject(expiry.signal.reason), { once: true }));
  const probe = db.transaction(
    async (tx) => {
      if (db.kind === "postgres") {
        // The server gives up too, so a probe stuck on a lock or a slow disk does not linger.
        await tx.exec(`SET LOCAL statement_timeout = ${Math.ceil(timeoutMs)}; SET LOCAL lock_timeout = ${Math.ceil(timeoutMs)}`);
        await tx.exec("TRUNCATE storage_probe; INSERT INTO storage_probe DEFAULT VALUES");
      } else {
        await tx.query("UPDATE storage_probe SET probed_at = now()");
      }
      throw ROLL_BACK;
    },
    { signal: expiry.signal },
  );
  probe.catch(() => {});
  try {
    await Promise.race([probe, expired]);
  } catch (error) {
    if (error === ROLL_BACK) return;
    const failure = asStorageError(error);
    throw failure instanceof StorageUnavailableError ? failure : new StorageUnavailableError(failure, "unavailable");
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Throws StorageUnavailableError (reason disk_full) when the filesystem of `directory` has less than
 * `minFreeBytes` free for this process's user: the next checkpoint, WAL segment or table page may
 * not fit, though every write so far did.
 */
export async function checkFreeSpace(directory: string, minFreeBytes: number): Promise<void> {
  let free: number;
  try {
    const { bavail, bsize } = await statfs(directory);
    free = bavail * bsize;
  } catch (error) {
    // The data directory is gone or unreadable: the storage is, too.
    const failure = asStorageError(error);
    throw failure instanceof StorageUnavailableError ? failure : new StorageUnavailableError(failure, "unavailable");
  }
  if (free < minFreeBytes) {
    throw new StorageUnavailableError(
      new Error(`${Math.floor(free / 1024 / 1024)} MB free under the data directory, below ${Math.ceil(minFreeBytes / 1024 / 1024)} MB`),
      "disk_full",
    );
  }
}
