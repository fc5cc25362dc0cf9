import { type Database, vectorOutbox } from "@als/db";
import { InProcessVectorIndex } from "@als/vector";
import { FollowingIndex, HELD } from "./following-index.ts";

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
 * The embedded mode's in-process index, following the vector outbox (see FollowingIndex) in a
 * process that owns its database: PGlite runs one transaction at a time, which is what makes
 * following the outbox by position sound (see vectorOutbox.entriesAfter). Entries stay in the
 * outbox until a checkpoint has saved the index with them; a process killed before that replays
 * them at its next start (a push reads the row again, so replaying is harmless).
 */
export class OutboxFollower extends FollowingIndex {
  private pushedThrough = 0;
  private lastCheckpoint = Date.now();

  private constructor(
    db: Database,
    index: InProcessVectorIndex,
    private readonly database: string,
  ) {
    super(db, index);
  }

  /** Starts from the snapshot in `directory` when it belongs to this database, else from the record. */
  static async open(db: Database, directory: string | undefined): Promise<OutboxFollower> {
    const database = await vectorOutbox.databaseIdentity(db);
    const index = new InProcessVectorIndex({ collections: HELD, ...(directory && { directory }) });
    if ((index.restoredMeta as SavedPosition | null)?.database !== database) index.clear();
    // Triggers that were off missed changes: whatever was saved cannot be trusted.
    if (await vectorOutbox.enableSync(db)) index.clear();
    if (await index.ensureCollections()) await vectorOutbox.noteAllRows(db);
    const follower = new OutboxFollower(db, index, database);
    // Searches use PGlite until this first catch-up is done; a failure is retried by the next one.
    follower.catchUp().catch(() => {});
    return follower;
  }

  /** Pushes every change and saves the index with them, then lets the outbox forget them (erasure waits for this). */
  drain(): Promise<void> {
    return this.exclusively(async () => {
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

  protected async pushPending(): Promise<void> {
    for (;;) {
      const entries = await vectorOutbox.entriesAfter(this.db, this.pushedThrough, BATCH);
      if (entries.length === 0) return;
      await this.pushRows(entries);
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
