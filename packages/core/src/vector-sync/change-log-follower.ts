import { type Database, vectorChangeLog } from "@als/db";
import { InProcessVectorIndex, PgVectorIndex, type PointRef } from "@als/vector";
import { type BackgroundLoop, startBackgroundLoop } from "../background-loop.ts";
import { FollowingIndex, HELD } from "./following-index.ts";

/** Rows read from a table at a time while rebuilding. */
const REBUILD_BATCH = 2000;
/** How often the log is read without a search asking (keeps the catch-up before a search short). */
const FOLLOW_INTERVAL_MS = 1000;
/** Entries are kept this long: a process that has not read the log for longer rebuilds. */
const RETENTION_MS = 10 * 60_000;
const PRUNE_INTERVAL_MS = 60_000;
/** How long start-up waits for transactions that began before the change log was on. */
const ENABLE_WAIT_MS = 30_000;

/**
 * Full mode's in-process index in an API process, following the change log of migration 0036
 * (see FollowingIndex): each process keeps its own graph, built from the tables at start (searches
 * use pgvector until then) and moved on by the log from the xmin of the snapshot it last read
 * with. Many processes follow the same log; each also prunes entries older than the retention.
 */
export class ChangeLogFollower extends FollowingIndex {
  /** Where the next read of the log starts; 0 before the first, which therefore rebuilds. */
  private horizon = 0n;
  private readonly loops: BackgroundLoop[] = [];

  private constructor(db: Database) {
    super(db, new InProcessVectorIndex({ collections: HELD }));
  }

  /** Starts the rebuild (searches use pgvector until it is done), the catch-up every second and the pruning. */
  static async open(db: Database, onError: (error: unknown) => void): Promise<ChangeLogFollower> {
    await vectorChangeLog.enableChangeLog(db, ENABLE_WAIT_MS);
    const follower = new ChangeLogFollower(db);
    follower.catchUp().catch(onError);
    follower.loops.push(
      startBackgroundLoop(() => follower.catchUp(), FOLLOW_INTERVAL_MS, onError),
      startBackgroundLoop(() => vectorChangeLog.pruneChanges(db, RETENTION_MS), PRUNE_INTERVAL_MS, onError),
    );
    return follower;
  }

  async close(): Promise<void> {
    for (const loop of this.loops) loop.stop();
    for (const loop of this.loops) await loop.idle();
  }

  protected async pushPending(): Promise<void> {
    const changes = await vectorChangeLog.changesSince(this.db, this.horizon);
    // The entries this follower has not read yet may be gone: start again from the tables.
    if (changes.prunedThrough >= this.horizon) return this.rebuild();
    await this.pushRows(changes.rows);
    this.horizon = changes.horizon;
  }

  /**
   * Reads every point from the tables, then follows the log from before the reading started.
   * Searches use pgvector meanwhile.
   */
  private async rebuild(): Promise<void> {
    this.caughtUp = false;
    const horizon = await vectorChangeLog.currentHorizon(this.db);
    this.index.clear();
    const record = new PgVectorIndex(this.db);
    for (const collection of HELD) {
      for (let after: PointRef | null = null; ; ) {
        const points = await record.readPointsAfter(collection, after, REBUILD_BATCH);
        await this.index.upsert(collection, points);
        if (points.length < REBUILD_BATCH) break;
        after = points[points.length - 1]!;
      }
    }
    this.horizon = horizon;
    await this.pushPending();
  }
}
