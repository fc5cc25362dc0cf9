import { type Collection, checkPayloadKey } from "../collections.ts";
import type { PayloadValue, PointRef, VectorFilter, VectorHit, VectorIndex, VectorPoint, VectorQuery } from "../vector-index.ts";
import { GraphThread } from "./graph-thread.ts";
import { Partition, unitOf } from "./partition.ts";
import { payloadFilter } from "./payload-filter.ts";
import { loadSnapshot, type PartitionRef, saveSnapshot } from "./snapshot.ts";

/**
 * Filters that name one request pass a few points of a project: PostgreSQL finds those rows through
 * their B-tree index and compares every one (exact), where the graph would be walked for neighbours
 * that are nearly all filtered out.
 */
const SELECTIVE_KEYS = ["request_id", "generated_from_request_id"];

export interface InProcessSettings {
  /** The collections it holds; points of others are not kept, and their searches are left to PostgreSQL. */
  collections: readonly Collection[];
  /** Where its snapshot lives; without one it is kept in memory only. */
  directory?: string;
  /**
   * Held collections whose every search names one user, which compares that user's points: they are
   * kept without a graph, which would cost every write its insertion and memory for no search. A
   * search of them naming no user compares every point.
   */
  searchedPerUser?: readonly Collection[];
}

/**
 * The VectorIndex inside the process: a usearch HNSW graph per collection and project, walked in a
 * thread of its own (GraphThread), with the payloads beside it and filters applied to the graph's
 * neighbours (see Partition.search). It saves itself to `directory` on `checkpoint` and starts from
 * the last save; what changed after that save must come again from the record (ChangeLogFollower
 * in packages/core). A search of the graph takes
 * about a millisecond at 100k points, where PGlite walked pgvector's graph on its one thread.
 */
export class InProcessVectorIndex implements VectorIndex {
  private readonly partitions = new Map<string, { ref: PartitionRef; partition: Partition }>();
  /** Holds the partitions' graphs; a new one after clear(). */
  private thread = new GraphThread();
  /** Query vectors made unit, by the array asked with: a unified search asks each kind's partition with the same one. */
  private readonly unitQueries = new WeakMap<readonly number[], Float32Array>();
  private readonly held: ReadonlySet<Collection>;
  private restored = false;
  /** Cleared since the last checkpoint: the save on disk holds points this index no longer has. */
  private cleared = false;
  /** What the last snapshot was saved with (see checkpoint), or null when none was loaded. */
  readonly restoredMeta: unknown = null;

  constructor(private readonly settings: InProcessSettings) {
    this.held = new Set(settings.collections);
    if (!settings.directory) return;
    let snapshot: ReturnType<typeof loadSnapshot>;
    try {
      snapshot = loadSnapshot(settings.directory, this.thread, (collection) => this.graphed(collection));
    } catch (error) {
      this.thread.close();
      throw error;
    }
    if (!snapshot) return;
    for (const entry of snapshot.partitions) this.partitions.set(partitionKey(entry.ref.collection, entry.ref.scope), entry);
    this.restored = true;
    this.restoredMeta = snapshot.meta;
  }

  /** True unless it started from a snapshot: an empty index must be filled from the record. */
  async ensureCollections(): Promise<boolean> {
    return !this.restored;
  }

  /** Forgets every point, e.g. a snapshot found to be of another database, or after its graph thread failed. */
  clear(): void {
    this.partitions.clear();
    this.thread.close();
    this.thread = new GraphThread();
    this.restored = false;
    this.cleared = true;
  }

  /** The collections it holds (InProcessSettings.collections). */
  get collections(): readonly Collection[] {
    return this.settings.collections;
  }

  /** How many points each held collection has, over every project (metrics). */
  pointCounts(): Record<Collection, number> {
    const counts = Object.fromEntries(this.settings.collections.map((collection) => [collection, 0])) as Record<Collection, number>;
    for (const { ref, partition } of this.partitions.values()) counts[ref.collection] += partition.size;
    return counts;
  }

  /**
   * Why its graphs can no longer be trusted (their thread failed), or null. Searches are then left
   * to the database until clear() and a refill from the record.
   */
  get failure(): Error | null {
    return this.thread.failure;
  }

  /** Stops its graph thread; it serves nothing after. */
  close(): void {
    this.thread.close();
  }

  serves(collection: Collection, filter: VectorFilter): boolean {
    return this.thread.failure === null && this.held.has(collection) && !filter.must.some((condition) => SELECTIVE_KEYS.includes(condition.key));
  }

  async upsert(collection: Collection, points: VectorPoint[]): Promise<void> {
    if (!this.held.has(collection)) return;
    const groups = [...groupByPartition(collection, points)];
    await Promise.all(groups.map(([key, group]) => this.partitionOf(key, collection, group[0]!.scope).upsert(group)));
  }

  async delete(collection: Collection, refs: PointRef[]): Promise<void> {
    if (!this.held.has(collection)) return;
    for (const [key, group] of groupByPartition(collection, refs)) {
      this.partitions.get(key)?.partition.delete(group.map((ref) => ref.id));
    }
  }

  async search(collection: Collection, query: VectorQuery): Promise<VectorHit[]> {
    if (!this.held.has(collection)) throw new Error(`the in-process vector index does not hold ${collection}`);
    for (const condition of query.filter.must) checkPayloadKey(collection, condition.key);
    const entry = this.partitions.get(partitionKey(collection, query.filter.scope));
    if (!entry) return [];
    // One user's search compares that user's points only, which need no check of their user.
    const user = query.filter.must.find((condition) => condition.key === "user_id" && "equals" in condition && typeof condition.equals === "string");
    let unit = this.unitQueries.get(query.vector);
    if (!unit) {
      unit = unitOf(query.vector);
      this.unitQueries.set(query.vector, unit);
    }
    return entry.partition.search(unit, {
      topK: query.topK,
      threshold: query.threshold,
      passes: payloadFilter(user ? query.filter.must.filter((condition) => condition !== user) : query.filter.must),
      user: user && "equals" in user ? (user.equals as string) : undefined,
    });
  }

  /** The payload it holds for a row, if any: the object it filters by (see ChangeLogFollower, which shares it with the text index). */
  payloadOf(collection: Collection, ref: PointRef): Record<string, PayloadValue> | undefined {
    return this.partitions.get(partitionKey(collection, ref.scope))?.partition.payloadOf(ref.id);
  }

  /** Saves every partition (rewriting only the changed ones) with `meta`, returned by the next start's `restoredMeta`. */
  checkpoint(meta: unknown): void {
    if (!this.settings.directory) return;
    saveSnapshot(this.settings.directory, meta, [...this.partitions.values()]);
    this.cleared = false;
  }

  /** Whether anything changed since the last checkpoint. */
  get changed(): boolean {
    if (this.cleared) return true;
    for (const { partition } of this.partitions.values()) if (partition.dirty) return true;
    return false;
  }

  /** Whether the collection's partitions have a graph (see InProcessSettings.searchedPerUser). */
  private graphed(collection: Collection): boolean {
    return !this.settings.searchedPerUser?.includes(collection);
  }

  private partitionOf(key: string, collection: Collection, scope: PartitionRef["scope"]): Partition {
    let entry = this.partitions.get(key);
    if (!entry) {
      const partition = new Partition(this.graphed(collection) ? this.thread : null);
      entry = { ref: { collection, scope: { orgId: scope.orgId, projectId: scope.projectId } }, partition };
      this.partitions.set(key, entry);
    }
    return entry.partition;
  }
}

function partitionKey(collection: Collection, scope: PartitionRef["scope"]): string {
  return JSON.stringify([collection, scope.orgId, scope.projectId]);
}

function groupByPartition<T extends PointRef>(collection: Collection, items: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = partitionKey(collection, item.scope);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
