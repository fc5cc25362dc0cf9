import { type Database, learningHnsw, openMaintenanceConnection, type StorageOptions } from "@als/db";
import type { CoreLogger } from "../create-core-deps.ts";

/** A build of the indexes under way in the background (PostgreSQL); close() stops waiting for it. */
export interface HnswBuild {
  /** Settles when the build is over, built or not (its failure is logged, never thrown). */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

/** One process at a time builds the indexes on a server; the others leave it to that one. */
const BUILD_LOCK = "hashtext('als:learning-hnsw')";

/**
 * The learnings' HNSW indexes are kept only where a search walks them. Every insert of a user or
 * agent playbook pays for them: on PGlite about six of every seven milliseconds of an embedded
 * learning's insert, on a PostgreSQL server about 1 ms a playbook on cores the model shares, which
 * held full mode's playbook writes to about half the embedding's pace (bench/README.md,
 * bulk-writes). So beside the in-process index or Qdrant, either of which answers every search of
 * them, they are dropped (a search the in-process index leaves to the database, before its first
 * catch-up or during a rebuild, is an exact scan there; with Qdrant out of reach searches answer
 * 503); with pgvector they are built again when missing.
 *
 * Every process of a deployment decides from the deployment's VECTOR_INDEX, the worker too (which
 * opens no index of its own). On PGlite the build runs before the process serves. On a server it
 * runs concurrently (writes go on) in the background, on a connection of its own, by one process
 * at a time, while searches use exact scans; a build stopped midway leaves an invalid index, which
 * the next start drops and builds again.
 */
export async function keepLearningHnswWhereSearched(
  db: Database,
  settings: { vectorIndex: string; storage?: StorageOptions | undefined },
  log: CoreLogger,
): Promise<HnswBuild | null> {
  const { vectorIndex, storage } = settings;
  const concurrently = db.kind === "postgres";
  if (vectorIndex !== "pgvector") {
    try {
      const dropped = await learningHnsw.dropLearningHnsw(db, { concurrently });
      if (dropped.length > 0)
        log.info("the database's HNSW indexes of the learnings dropped: the vector index answers their searches", { vectorIndex, dropped });
    } catch (error) {
      // A long transaction on the table holds a concurrent drop past its statement timeout: writes
      // keep paying for the index until a later start drops it.
      if (!concurrently) throw error;
      log.error("the database's HNSW indexes of the learnings could not be dropped", { vectorIndex, error: String(error) });
    }
    return null;
  }
  const missing = await learningHnsw.missingLearningHnsw(db);
  if (missing.length === 0) return null;
  log.info("building the database's HNSW indexes of the learnings (pgvector searches them); this reads every learning", {
    missing,
    background: concurrently,
  });
  if (!concurrently) {
    await learningHnsw.restoreLearningHnsw(db, { concurrently });
    return null;
  }
  if (storage?.kind !== "postgres") throw new Error("building the learnings' HNSW indexes on a server needs its storage settings");
  return buildInBackground(storage, log);
}

function buildInBackground(storage: Extract<StorageOptions, { kind: "postgres" }>, log: CoreLogger): HnswBuild {
  const connection = openMaintenanceConnection(storage);
  const build = async () => {
    const [{ locked }] = (await connection.query<{ locked: boolean }>(`SELECT pg_try_advisory_lock(${BUILD_LOCK}) AS locked`)) as [{ locked: boolean }];
    if (!locked) {
      log.info("the learnings' HNSW indexes are being built by another process");
      return;
    }
    // The graph of a large table fits in memory while it is built (a cap, not an allocation).
    await connection.query("SET maintenance_work_mem = '512MB'");
    const built = await learningHnsw.restoreLearningHnsw(connection, { concurrently: true });
    log.info("the database's HNSW indexes of the learnings are built", { built });
  };
  const done = build()
    .catch((error: unknown) => log.error("building the database's HNSW indexes of the learnings failed; the next start tries again", { error: String(error) }))
    // The session's lock goes with its connection.
    .finally(() => connection.close());
  return { done, close: () => connection.close() };
}
