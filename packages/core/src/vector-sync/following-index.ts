import type { Database } from "@als/db";
import {
  type Collection,
  type InProcessVectorIndex,
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
export const HELD: readonly Collection[] = ["profiles", "user_playbooks", "agent_playbooks"];

/** A row whose point changed, as the outbox and the change log name it. */
export interface NotedRow {
  collection: string;
  org_id: string;
  project_id: string;
  row_id: string;
}

/**
 * An InProcessVectorIndex that follows the record (PostgreSQL or PGlite) through a log of changed
 * rows; subclasses say which log and how they keep their place in it (`pushPending`).
 *
 * - A search first pushes what changed since the last push, so it sees every write that committed
 *   before it (one indexed read of the log when nothing changed).
 * - Until the first catch-up after start has finished (a rebuild takes a while), searches are left
 *   to PostgreSQL (`serves`), which holds every vector too.
 */
export abstract class FollowingIndex implements VectorIndex {
  /** False: searches are left to PostgreSQL (before the first catch-up, during a rebuild). */
  protected caughtUp = false;
  /** The catch-up (or other work on the index) running now; one at a time. */
  private running: Promise<void> = Promise.resolve();
  /** A catch-up queued behind the running one, shared by every search that arrives meanwhile. */
  private queued: Promise<void> | null = null;

  protected constructor(
    protected readonly db: Database,
    protected readonly index: InProcessVectorIndex,
  ) {}

  /** Pushes everything the log holds beyond this follower's place in it, and moves the place on. */
  protected abstract pushPending(): Promise<void>;

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

  /** Points come from the record through the log, never from callers. */
  async upsert(_collection: Collection, _points: VectorPoint[]): Promise<void> {}

  async delete(_collection: Collection, _refs: PointRef[]): Promise<void> {}

  /** Pushes every change committed so far. */
  catchUp(): Promise<void> {
    this.queued ??= this.exclusively(async () => {
      this.queued = null;
      await this.pushPending();
      this.caughtUp = true;
    });
    return this.queued;
  }

  /** Runs `work` after the work on the index queued before it. */
  protected exclusively(work: () => Promise<void>): Promise<void> {
    const run = this.running.then(work);
    this.running = run.catch(() => {});
    return run;
  }

  /** Makes the noted rows' points what the record holds now: removed, and added again where they exist with a vector. */
  protected async pushRows(rows: readonly NotedRow[]): Promise<void> {
    const record = new PgVectorIndex(this.db);
    for (const [collection, noted] of groupBy(rows, (row) => row.collection as Collection)) {
      if (!HELD.includes(collection)) continue;
      const refs = noted.map((row) => ({ scope: { orgId: row.org_id, projectId: row.project_id }, id: row.row_id }));
      const points = await record.readPoints(collection, refs);
      await this.index.delete(collection, refs);
      await this.index.upsert(collection, points);
    }
  }
}
