import { isDeepStrictEqual } from "node:util";
import { type Database, FUSION, QueryLexemes, vectorChangeLog } from "@als/db";
import {
  type Collection,
  type IndexedRow,
  InProcessVectorIndex,
  PgVectorIndex,
  type PointRef,
  type TextArm,
  type TextDocument,
  TextIndex,
  type VectorFilter,
  type VectorHit,
  type VectorIndex,
  type VectorPoint,
  type VectorQuery,
} from "@als/vector";
import { type BackgroundLoop, startBackgroundLoop } from "../background-loop.ts";
import { groupBy } from "../group-by.ts";

/**
 * The learnings, with their vectors, their search_text and the rows a search returns, in both modes.
 * Beside a PostgreSQL server too: holding only the playbooks' vectors and the agent playbooks' text,
 * with one user's searches left to a statement per kind after the query embeds, a search at 100k
 * learnings per kind took 12.7–15.5 ms of CPU (this process's and the server's)
 * against 9.5–10.0 holding every kind, which keeps about 0.8 GB more in each API process (1.8 GB
 * against 1.0 after a full collection) and builds in 68–70 s against 56 (bench/README.md,
 * unified-search). Interactions are searched per user and session, in the database.
 */
const HELD: readonly Collection[] = ["profiles", "user_playbooks", "agent_playbooks"];
/**
 * Held collections whose every search names one user (the contract's profile searches all take a
 * user_id): kept without a graph (InProcessSettings.searchedPerUser), which no search walked. At
 * 100k learnings per kind it held 50–66 MB, and built from the tables the index was ready in 43.9 s
 * without it against 55.5 with it.
 */
const SEARCHED_PER_USER: readonly Collection[] = ["profiles"];
/** Rows read from a table at a time while rebuilding. */
const REBUILD_BATCH = 2000;
/** How often the log is read without a search asking (keeps the catch-up before a search short). */
const FOLLOW_INTERVAL_MS = 1000;
/** How often a graph that changed is saved (embedded): what a restart reads from the log at most. */
const SAVE_INTERVAL_MS = 30_000;
/** Entries are kept this long: a process that has not read the log for longer rebuilds. */
const RETENTION_MS = 10 * 60_000;
const PRUNE_INTERVAL_MS = 60_000;
/** How long start-up waits for transactions that began before the change log was on. */
const ENABLE_WAIT_MS = 30_000;

/** What a save records beside the graph. */
interface SavedPlace {
  database: string;
  /** The horizon the saved graph had followed the log to. */
  horizon: string;
}

/**
 * A VectorIndex inside the API process (InProcessVectorIndex), kept in step with the record by
 * following the change log of migration 0036 from the xmin of the snapshot it last read with
 * (vectorChangeLog.changesSince). Every API process keeps its own; each also prunes old entries.
 *
 * - A search first takes in what the log holds beyond its place, so it sees every write that
 *   committed before it (one indexed read of the log when nothing changed; embedded, none when no
 *   commit was announced since the last read: see asOfNow).
 * - It starts from its save in `directory` when one was made for this database (embedded mode:
 *   saved every 30 s while it changes, and on close), else from the tables. Until that first
 *   catch-up or rebuild is done (a rebuild of 100k rows per kind takes a minute or two), and during
 *   a later rebuild, searches are left to PostgreSQL (`serves`), which holds every vector too.
 * - A place in the log older than the pruning means entries may be lost: it rebuilds.
 */
export class ChangeLogFollower implements VectorIndex {
  /** Where the next read of the log starts; 0 before the first, which therefore rebuilds. */
  private horizon = 0n;
  /** False: searches are left to PostgreSQL (before the first catch-up, during a rebuild). */
  private caughtUp = false;
  private lastSave = Date.now();
  /** When the log was last read through (performance.now()); null before the first catch-up. */
  private followedAt: number | null = null;
  private readonly loops: BackgroundLoop[] = [];
  /**
   * Whether the text index holds every row as of `horizon`. It is not saved: a start from the
   * graph's save reads the rows' search_text again before following the log.
   */
  private textLoaded = false;
  /** The catch-up, rebuild or save running now; one at a time. */
  private running: Promise<void> = Promise.resolve();
  /** A catch-up queued behind the running one, shared by every search that arrives meanwhile. */
  private queued: Promise<void> | null = null;
  /** The catch-up queued last: a search shares it while no commit was announced since its read began. */
  private latest: Promise<void> | null = null;
  /**
   * Embedded: whether a commit added entries to the log since the last read of it began (PGlite
   * announces each to this process before the call that committed it answers). Null where nothing
   * announces (beside a PostgreSQL server, whose other processes write too): every search reads.
   */
  private announced: boolean | null = null;
  private stopHearing: (() => Promise<void>) | null = null;
  /** The text arm's query lexemes, made as the SQL arm's (distinctiveWords in packages/db). */
  private readonly queryLexemes: QueryLexemes;

  private constructor(
    private readonly db: Database,
    private readonly index: InProcessVectorIndex,
    /** The rows' search_text and what a search returns of them. */
    private readonly textIndex: TextIndex,
    private readonly database: string,
    /** Whether it started from a save (tests and the start-up log say which). */
    readonly startedFrom: "save" | "tables",
    private readonly onError: (error: unknown) => void,
  ) {
    this.queryLexemes = new QueryLexemes(db);
  }

  /** Opens the save in `directory` (if any), starts the first catch-up and the background loops. */
  static async open(db: Database, options: { directory?: string | undefined; onError: (error: unknown) => void }): Promise<ChangeLogFollower> {
    const { directory, onError } = options;
    // Turned on just now: changes made while it was off are in no log, so no save can be trusted.
    const enabledNow = await vectorChangeLog.enableChangeLog(db, ENABLE_WAIT_MS);
    const database = await vectorChangeLog.databaseIdentity(db);
    const index = new InProcessVectorIndex({ collections: HELD, ...(directory && { directory }), searchedPerUser: SEARCHED_PER_USER });
    const saved = index.restoredMeta as SavedPlace | null;
    const usable = !enabledNow && saved?.database === database;
    if (!usable) index.clear();
    const textIndex = new TextIndex(HELD, FUSION.partialMatch);
    const follower = new ChangeLogFollower(db, index, textIndex, database, usable ? "save" : "tables", onError);
    if (usable) follower.horizon = BigInt(saved!.horizon);
    // Heard before the first read, so that no commit falls between the two.
    follower.stopHearing = await vectorChangeLog.hearChanges(db, () => {
      follower.announced = true;
    });
    if (follower.stopHearing) follower.announced = true;
    follower.catchUp().catch(onError);
    follower.loops.push(
      startBackgroundLoop(() => follower.catchUp(), FOLLOW_INTERVAL_MS, onError),
      startBackgroundLoop(() => vectorChangeLog.pruneChanges(db, RETENTION_MS), PRUNE_INTERVAL_MS, onError),
    );
    if (directory) follower.loops.push(startBackgroundLoop(() => follower.saveWhenDue(), SAVE_INTERVAL_MS / 6, onError));
    return follower;
  }

  async ensureCollections(): Promise<boolean> {
    return false;
  }

  serves(collection: Collection, filter: VectorFilter): boolean {
    return this.caughtUp && this.index.serves(collection, filter);
  }

  async search(collection: Collection, query: VectorQuery): Promise<VectorHit[]> {
    await this.asOfNow();
    return this.index.search(collection, query);
  }

  searchAsOfNow(): { caughtUp: Promise<void>; search: VectorIndex["search"]; text: TextArm } {
    const caughtUp = this.asOfNow();
    // Its failure is the searches' to report; a request may make none (the index serves no kind it searches).
    caughtUp.catch(() => {});
    return {
      caughtUp,
      search: async (collection, query) => {
        await caughtUp;
        return this.index.search(collection, query);
      },
      text: this.textArm(caughtUp),
    };
  }

  /** The text arm of the rows it holds, each search after a catch-up of its own. */
  get text(): TextArm {
    return this.textArm();
  }

  /** The text arm whose searches wait for `caughtUp`, or for a catch-up of their own. */
  private textArm(caughtUp?: Promise<void>): TextArm {
    const { textIndex } = this;
    return {
      serves: (collection, filter) => this.caughtUp && this.textLoaded && textIndex.holds(collection) && this.index.serves(collection, filter),
      words: (text) => this.queryLexemes.of(text),
      search: async (collection, query) => {
        await (caughtUp ?? this.asOfNow());
        return textIndex.search(collection, query);
      },
      returnedRows: (collection, filter, ids) => textIndex.returnedRows(collection, filter, ids),
    };
  }

  /** Points come from the record through the log, never from callers. */
  async upsert(_collection: Collection, _points: VectorPoint[]): Promise<void> {}

  async delete(_collection: Collection, _refs: PointRef[]): Promise<void> {}

  /** Takes in every change committed so far. */
  catchUp(): Promise<void> {
    if (this.queued) return this.queued;
    this.queued = this.exclusively(async () => {
      this.queued = null;
      if (this.announced !== null) this.announced = false;
      try {
        await this.pushPending();
      } catch (error) {
        if (this.announced !== null) this.announced = true;
        throw error;
      }
      this.caughtUp = true;
      this.followedAt = performance.now();
    });
    this.latest = this.queued;
    return this.queued;
  }

  /**
   * What a search waits for to see every change committed before it: the latest catch-up when no
   * commit was announced since that one began reading (embedded: then the log holds nothing new, and
   * a search reads nothing), else a catch-up of its own. The background loop reads the log every
   * second all the same, which keeps the place in it ahead of the pruning.
   */
  private asOfNow(): Promise<void> {
    return this.announced === false && this.latest ? this.latest : this.catchUp();
  }

  /**
   * What metrics show of it: the points it holds per collection, whether it serves searches (caught
   * up, not rebuilding), and how long ago it last read the log through (null: never yet).
   */
  status(): { points: Record<string, number>; serving: boolean; followedSecondsAgo: number | null } {
    return {
      points: this.index.pointCounts(),
      serving: this.caughtUp && this.index.failure === null,
      followedSecondsAgo: this.followedAt === null ? null : (performance.now() - this.followedAt) / 1000,
    };
  }

  /** Takes in every change and saves the graph with it (an erasure waits for this, so no save keeps the subject's points). */
  drain(): Promise<void> {
    return this.exclusively(async () => {
      await this.pushPending();
      this.save();
    });
  }

  /** Stops the loops and saves what changed, so the next start reads little of the log. */
  async close(): Promise<void> {
    for (const loop of this.loops) loop.stop();
    for (const loop of this.loops) await loop.idle();
    // Stopped before the database closes; a database already closed has nobody left to hear.
    await this.stopHearing?.().catch(() => {});
    await this.drain();
    this.index.close();
  }

  private exclusively(work: () => Promise<void>): Promise<void> {
    const run = this.running.then(work);
    this.running = run.catch(() => {});
    return run;
  }

  private async pushPending(): Promise<void> {
    // Its graphs' thread failed: they are refilled from the tables with a new one.
    if (this.index.failure) {
      this.onError(new Error("the in-process vector index's graph thread failed; rebuilding it from the tables", { cause: this.index.failure }));
      return this.rebuild();
    }
    // Read before the log from the saved horizon on, which rereads whatever changed since.
    if (!this.textLoaded && this.horizon > 0n) await this.loadText();
    const changes = await vectorChangeLog.changesSince(this.db, this.horizon);
    // The entries this follower has not read yet may be gone: start again from the tables.
    if (changes.prunedThrough >= this.horizon) return this.rebuild();
    await this.pushRows(changes.rows);
    this.horizon = changes.horizon;
  }

  /** Makes the changed rows' points and documents what the record holds now: removed, and added again where they exist (points where they have a vector). */
  private async pushRows(rows: readonly vectorChangeLog.ChangedRow[]): Promise<void> {
    const record = new PgVectorIndex(this.db);
    for (const [collection, changed] of groupBy(rows, (row) => row.collection as Collection)) {
      // The log names the learnings' tables only (migration 0036), each held in both parts.
      if (!this.textIndex.holds(collection)) continue;
      const refs = changed.map((row) => ({ scope: { orgId: row.org_id, projectId: row.project_id }, id: row.row_id }));
      const found = await record.readRows(collection, refs);
      await this.index.delete(collection, refs);
      await this.index.upsert(collection, pointsOf(found));
      this.textIndex.delete(collection, refs);
      this.textIndex.upsert(
        collection,
        found.map((row) => row.document),
      );
    }
  }

  /**
   * The documents, each with the payload object the vector index holds for its row where the two
   * are alike, so that a row's payload is kept once (full mode at 100k learnings per kind: 90 MB
   * of the heap, 2.8 million objects). After a start from a save the graph's payloads come from the
   * save and the documents from the tables: where the row changed since, each keeps its own until
   * the log brings the change to both.
   */
  private withHeldPayloads(collection: Collection, documents: TextDocument[]): TextDocument[] {
    for (const document of documents) {
      const held = this.index.payloadOf(collection, document);
      if (held && isDeepStrictEqual(held, document.payload)) document.payload = held;
    }
    return documents;
  }

  /** Reads every row's search_text from the tables into the text index. */
  private async loadText(): Promise<void> {
    this.textIndex.clear();
    const record = new PgVectorIndex(this.db);
    for (const collection of this.textIndex.collections) {
      for (let after: PointRef | null = null; ; ) {
        const documents = await record.readDocumentsAfter(collection, after, REBUILD_BATCH);
        this.textIndex.upsert(collection, this.withHeldPayloads(collection, documents));
        collectBatchGarbage();
        if (documents.length < REBUILD_BATCH) break;
        after = documents[documents.length - 1]!;
      }
    }
    this.textLoaded = true;
  }

  /**
   * Reads every row from the tables (its point and its document in one read), then follows the
   * log from before the reading started.
   */
  private async rebuild(): Promise<void> {
    this.caughtUp = false;
    const horizon = await vectorChangeLog.currentHorizon(this.db);
    this.index.clear();
    this.textIndex.clear();
    this.textLoaded = false;
    const record = new PgVectorIndex(this.db);
    for (const collection of this.index.collections) {
      for (let after: PointRef | null = null; ; ) {
        const rows = await record.readRowsAfter(collection, after, REBUILD_BATCH);
        await this.index.upsert(collection, pointsOf(rows));
        this.textIndex.upsert(
          collection,
          rows.map((row) => row.document),
        );
        collectBatchGarbage();
        if (rows.length < REBUILD_BATCH) break;
        after = rows[rows.length - 1]!.document;
      }
    }
    this.textLoaded = true;
    this.horizon = horizon;
    await this.pushPending();
  }

  private async saveWhenDue(): Promise<void> {
    if (this.index.changed && Date.now() - this.lastSave >= SAVE_INTERVAL_MS) await this.drain();
  }

  private save(): void {
    this.lastSave = Date.now();
    if (this.index.changed) this.index.checkpoint({ database: this.database, horizon: this.horizon.toString() } satisfies SavedPlace);
  }
}

/** The points of the rows that have a vector. */
function pointsOf(rows: readonly IndexedRow[]): VectorPoint[] {
  return rows.flatMap((row) => (row.point ? [row.point] : []));
}

/**
 * Collects the young garbage of one batch of a load (Bun's runtime; elsewhere nothing). Rows read,
 * parsed and thrown away as the index keeps what it needs from them are most of what a load
 * allocates: left to the collector's own pace they first grow the heap by gigabytes at 100k rows a
 * kind, then are returned to the system in pieces between the index's live pages, each piece a
 * mapping of its own; an embedded process then neared the kernel's limit of 65,530 mappings
 * (vm.max_map_count), where allocation fails and the process stalls. Measured with
 * bench/unified-search.ts at 100k rows of each kind (embedded, the graph from its save): RSS with
 * the indexes ready 4.2 → 2.9 GB, the most mappings the process held 40k → 19k, ready in 7.5 s as before.
 */
function collectBatchGarbage(): void {
  (globalThis as { Bun?: { gc(full: boolean): void } }).Bun?.gc(false);
}
