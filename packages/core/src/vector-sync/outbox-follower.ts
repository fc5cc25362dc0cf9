import { type Database, vectorOutbox } from "@als/db";
import {
  type Collection,
  InProcessVectorIndex,
  PgVectorIndex,
  type PointRef,
  type VectorFilter,
  type VectorHit,
  type VectorIndex,
  type VectorPoint,
  type VectorQuery,
} from "@als/vector";
import { groupBy } from "../group-by.ts";

/** The collections searched project-wide, where a graph beats pgvector's walk; interactions are searched per user. */
const HELD: readonly Collection[] = ["profiles", "user_playbooks", "agent_playbooks"];
/** Outbox entries read and pushed at a time. */
const BATCH = 1024;
/** How often the index is saved while it changes: what a restart replays from the outbox at most. */
const CHECKPOINT_INTERVAL_MS = 30_000;

interface SavedPosition {
  database: string;
  /** Every change up to this change_seq is in the saved index. */
  through: number;
}

/**
 * An InProcessVectorIndex kept in step with the record by following the vector outbox, for a
 * process that owns its database (the embedded mode: PGlite runs one transaction at a time, which
 * is what makes following the outbox by position sound; see vectorOutbox.entriesAfter).
 *
 * - A search first pushes what the outbox noted since the last push, so it sees every write that
 *   committed before it (one indexed outbox read when nothing changed).
 * - Entries stay in the outbox until a checkpoint has saved the index with them; a process killed
 *   before that replays them at its next start (a push reads the row again, so replaying is harmless).
 * - Until the first catch-up after start has finished (a rebuild after a lost or foreign snapshot
 *   takes a while), searches are left to PostgreSQL (`serves`), which holds every vector too.
 */
export class OutboxFollower implements VectorIndex {
  private pushedThrough = 0;
  private caughtUp = false;
  private lastCheckpoint = Date.now();
  /** The catch-up or checkpoint running now; one at a time. */
  private running: Promise<void> = Promise.resolve();
  /** A catch-up queued behind the running one, shared by every search that arrives meanwhile. */
  private queued: Promise<void> | null = null;

  private constructor(
    private readonly db: Database,
    private readonly index: InProcessVectorIndex,
    private readonly database: string,
  ) {}

  /** Starts from the snapshot in `directory` when it belongs to this database, else from the record. */
  static async open(db: Database, directory: string | undefined): Promise<OutboxFollower> {
    const database = await vectorOutbox.databaseIdentity(db);
    const index = new InProcessVectorIndex({ collections: HELD, ...(directory && { directory }) });
    if ((index.restoredMeta as SavedPosition | null)?.database !== database) index.clear();
    // Triggers that were off missed changes: whatever was saved cannot be trusted.
    if (await vectorOutbox.enableSync(db)) index.clear();
    if (await index.ensureCollections()) await vectorOutbox.noteAllRows(db);
    const follower = new OutboxFollower(db, index, database);
    follower.catchUp().then(
      () => {
        follower.caughtUp = true;
      },
      () => {},
    );
    return follower;
  }

  async ensureCollections(): Promise<boolean> {
    return false;
  }

  serves(collection: Collection, filter: VectorFilter): boolean {
    return this.caughtUp && this.index.serves(collection, filter);
  }

  async search(collection: Collection, query: VectorQuery): Promise<VectorHit[]> {
    await this.catchUp();
    return this.index.search(collection, query);
  }

  /** Points come from the record through the outbox, never from callers. */
  async upsert(_collection: Collection, _points: VectorPoint[]): Promise<void> {}

  async delete(_collection: Collection, _refs: PointRef[]): Promise<void> {}

  /** Pushes every change committed so far. */
  catchUp(): Promise<void> {
    this.queued ??= this.after(() => {
      this.queued = null;
      return this.pushPending();
    });
    return this.queued;
  }

  /** Pushes every change and saves the index with them, then lets the outbox forget them (erasure waits for this). */
  drain(): Promise<void> {
    return this.after(async () => {
      await this.pushPending();
      await this.save();
    });
  }

  /** One pass of the background loop: keeps the index fresh, and saves it when it changed a while ago. */
  async tick(): Promise<void> {
    await this.catchUp();
    if (this.index.changed && Date.now() - this.lastCheckpoint >= CHECKPOINT_INTERVAL_MS) await this.drain();
  }

  /** Saves what changed (a graceful stop replays nothing at the next start). */
  close(): Promise<void> {
    return this.drain();
  }

  private after(work: () => Promise<void>): Promise<void> {
    const run = this.running.then(work);
    this.running = run.catch(() => {});
    return run;
  }

  private async pushPending(): Promise<void> {
    for (;;) {
      const entries = await vectorOutbox.entriesAfter(this.db, this.pushedThrough, BATCH);
      if (entries.length === 0) return;
      const record = new PgVectorIndex(this.db);
      for (const [collection, noted] of groupBy(entries, (entry) => entry.collection as Collection)) {
        const refs = noted.map((entry) => ({ scope: { orgId: entry.org_id, projectId: entry.project_id }, id: entry.row_id }));
        // Every noted row is removed, and those that exist with a vector are added again as they are now.
        await this.index.delete(collection, refs);
        await this.index.upsert(collection, HELD.includes(collection) ? await record.readPoints(collection, refs) : []);
      }
      this.pushedThrough = entries[entries.length - 1]!.change_seq;
      if (entries.length < BATCH) return;
    }
  }

  private async save(): Promise<void> {
    this.lastCheckpoint = Date.now();
    const through = this.pushedThrough;
    if (this.index.changed) this.index.checkpoint({ database: this.database, through } satisfies SavedPosition);
    await vectorOutbox.removeThrough(this.db, through);
  }
}
