import type { PayloadValue, VectorHit } from "../vector-index.ts";
import type { GraphShape, GraphThread } from "./graph-thread.ts";

/** The database column is vector(384). */
export const DIMENSIONS = 384;

/** Below this many points a search compares every one (well under a millisecond) instead of walking the graph. */
const EXACT_BELOW = 1024;

/**
 * The graph's shape, chosen on the 100k playbook vectors of bench/unified-search.ts with e5 query
 * vectors (recall@10 of the first 160 neighbours, rescored, against an exact scan): 32 neighbours a
 * node and 200 candidates while adding, 300 while searching: 0.991 in 0.9 ms. 16 neighbours reached
 * 0.97 at most; e5 puts its query vectors apart from its passage vectors, where a sparser graph
 * serves them poorly. Its vectors are kept as 8-bit integers: over 200 e5 queries, recall@10 0.994
 * against 0.993 with half-precision floats, a search 0.50 ms against 0.81, 100k vectors added in 12 s
 * against 21 (two threads), and half the memory; the similarities served are computed from the
 * full-precision vectors kept beside it either way.
 */
const GRAPH: GraphShape = {
  dimensions: DIMENSIONS,
  metric: "cos",
  quantization: "i8",
  multi: false,
  connectivity: 32,
  expansion_add: 200,
  expansion_search: 300,
};

export interface StoredPoint {
  id: string;
  payload: Record<string, PayloadValue>;
  /** Unit length, so a dot product is the cosine similarity. */
  unit: Float32Array;
}

/** What a partition's snapshot file holds besides its graph and vectors: the key of every point and what it stands for. */
export interface PartitionPoints {
  nextKey: number;
  points: [key: number, id: string, payload: Record<string, PayloadValue>][];
}

/**
 * The points of one collection in one project: a usearch HNSW graph (cosine, 8-bit, which builds
 * and walks faster than floats at the same recall; see GRAPH), held in the index's graph thread,
 * whose keys stand for the rows' ids, payloads and full-precision vectors, kept here. The graph finds candidates; their similarity
 * is computed from the kept vectors, and a filter the graph cannot satisfy is answered by comparing
 * every point. A replaced point gets a new key, so the graph never holds two vectors under one key.
 * A partition made without a thread has no graph (a collection whose every search names one user):
 * a search naming no user then compares every point.
 */
export class Partition {
  /** The graph's thread and its number there; null without one. */
  private readonly graph: { thread: GraphThread; id: number } | null;
  private readonly keyOfId = new Map<string, number>();
  private readonly pointOfKey = new Map<number, StoredPoint>();
  /** Each user's points (payload user_id): one user's search compares just those. */
  private readonly pointsOfUser = new Map<string, Set<StoredPoint>>();
  private nextKey = 0;
  /** Changed since it was last saved. */
  dirty = false;
  /** Where its files were last written or read (the path without extension): unchanged, the next save links them from there. */
  files: string | undefined;

  constructor(thread: GraphThread | null) {
    this.graph = thread ? { thread, id: thread.create(GRAPH) } : null;
  }

  get hasGraph(): boolean {
    return this.graph !== null;
  }

  get size(): number {
    return this.pointOfKey.size;
  }

  /** The payload held for row `id`, if any. */
  payloadOf(id: string): StoredPoint["payload"] | undefined {
    const key = this.keyOfId.get(id);
    return key === undefined ? undefined : this.pointOfKey.get(key)?.payload;
  }

  /** Replaces or adds the points; done once the graph holds them (searches sent meanwhile see them already). */
  async upsert(points: { id: string; vector: readonly number[]; payload: Record<string, PayloadValue> }[]): Promise<void> {
    if (points.length === 0) return;
    this.delete(points.map((point) => point.id));
    const keys = new BigUint64Array(points.length);
    const vectors = new Float32Array(points.length * DIMENSIONS);
    for (const [i, point] of points.entries()) {
      const key = this.nextKey++;
      keys[i] = BigInt(key);
      vectors.set(point.vector, i * DIMENSIONS);
      this.remember(key, { id: point.id, payload: point.payload, unit: unitOf(point.vector) });
    }
    this.dirty = true;
    // 0: as many threads as the machine has; a large batch (a rebuild) is what they speed up.
    if (this.graph) await this.graph.thread.add(this.graph.id, keys, vectors, 0);
  }

  delete(ids: string[]): void {
    const removed: bigint[] = [];
    for (const id of ids) {
      const key = this.keyOfId.get(id);
      if (key === undefined) continue;
      removed.push(BigInt(key));
      const point = this.pointOfKey.get(key)!;
      const user = point.payload.user_id;
      const ofUser = typeof user === "string" ? this.pointsOfUser.get(user) : undefined;
      ofUser?.delete(point);
      if (ofUser?.size === 0) this.pointsOfUser.delete(user as string);
      this.keyOfId.delete(id);
      this.pointOfKey.delete(key);
      this.dirty = true;
    }
    if (removed.length > 0 && this.graph) this.graph.thread.remove(this.graph.id, BigUint64Array.from(removed));
  }

  /**
   * The points nearest `query` (unit length, see unitOf) whose payload `passes`, nearest first,
   * above `threshold`. The graph knows no payloads, so it is asked for twice `topK` neighbours,
   * then four times as many each round, until `topK` pass or the similarity falls to the threshold;
   * when it has no more to give (a filter that passes few points, or points its walk cannot reach),
   * every point is compared: a filter costs time, never results. Twice rather than four times
   * `topK` (full 100k, four alternating pairs of bench/unified-search runs): c=1 p50 17.8 against
   * 19.9 ms, recall@10 unchanged (agent playbooks 0.982 against 0.983, project-wide user playbooks
   * 0.987–0.989 against 0.980–0.990); each neighbour rescored is a point read from memory the query
   * embedding has just pushed out of the caches.
   */
  async search(
    query: Float32Array,
    options: { topK: number; threshold: number | undefined; passes: (payload: StoredPoint["payload"]) => boolean; user?: string | undefined },
  ): Promise<VectorHit[]> {
    const { topK, threshold, passes, user } = options;
    if (user !== undefined) return this.compare([...(this.pointsOfUser.get(user) ?? [])], query, topK, threshold, passes);
    const { graph } = this;
    if (!graph || this.size < EXACT_BELOW) return this.compare([...this.pointOfKey.values()], query, topK, threshold, passes);
    for (let k = Math.max(2 * topK, 64); k < this.size; k *= 4) {
      const found = await graph.thread.search(graph.id, query, k);
      const kept = this.compare(this.pointsOfKeys(found.keys), query, topK, threshold, passes);
      // Every point beyond the last neighbour returned is further than it: enough, or past the threshold.
      const farthest = found.distances.length > 0 ? 1 - found.distances[found.distances.length - 1]! : -1;
      if (kept.length >= topK || (threshold !== undefined && farthest <= threshold)) return kept;
      if (found.keys.length < k) break;
    }
    return this.compare([...this.pointOfKey.values()], query, topK, threshold, passes);
  }

  /** The points of these keys, leaving out keys removed since (the graph may still name them). */
  private pointsOfKeys(keys: Iterable<number | bigint>): StoredPoint[] {
    const points: StoredPoint[] = [];
    for (const key of keys) {
      const point = this.pointOfKey.get(Number(key));
      if (point) points.push(point);
    }
    return points;
  }

  /**
   * The `topK` of `points` passing the filter, by their exact similarity (ties in the order given).
   * The filter is asked of the most similar first, until `topK` pass: each payload it reads is an
   * object apart in memory, and most searches need 40 of a user's hundred or so points.
   */
  private compare(
    points: readonly StoredPoint[],
    query: Float32Array,
    topK: number,
    threshold: number | undefined,
    passes: (payload: StoredPoint["payload"]) => boolean,
  ): VectorHit[] {
    const similarities = similaritiesTo(query, points);
    const order: number[] = [];
    for (let at = 0; at < points.length; at++) if (threshold === undefined || similarities[at]! > threshold) order.push(at);
    order.sort((a, b) => similarities[b]! - similarities[a]! || a - b);
    const hits: VectorHit[] = [];
    for (const at of order) {
      if (hits.length === topK) break;
      if (passes(points[at]!.payload)) hits.push({ id: points[at]!.id, similarity: similarities[at]! });
    }
    return hits;
  }

  private remember(key: number, point: StoredPoint): void {
    this.keyOfId.set(point.id, key);
    this.pointOfKey.set(key, point);
    const user = point.payload.user_id;
    if (typeof user !== "string") return;
    const points = this.pointsOfUser.get(user);
    if (points) points.add(point);
    else this.pointsOfUser.set(user, new Set([point]));
  }

  /** Writes the graph (if it has one) to `graphPath`; the points and their vectors (in the points' order) are for the caller to write. */
  save(graphPath: string): { points: PartitionPoints; vectors: Float32Array } {
    if (this.graph) this.graph.thread.save(this.graph.id, graphPath);
    this.dirty = false;
    const vectors = new Float32Array(this.size * DIMENSIONS);
    const points: PartitionPoints["points"] = [];
    for (const [key, point] of this.pointOfKey) {
      vectors.set(point.unit, points.length * DIMENSIONS);
      points.push([key, point.id, point.payload]);
    }
    return { points: { nextKey: this.nextKey, points }, vectors };
  }

  /** A saved partition; without a thread, its graph (if one was saved) is not read. */
  static load(thread: GraphThread | null, graphPath: string, saved: PartitionPoints, vectors: Float32Array): Partition {
    const partition = new Partition(thread);
    const { graph } = partition;
    const graphSize = graph ? graph.thread.load(graph.id, graphPath) : saved.points.length;
    partition.nextKey = saved.nextKey;
    if (vectors.length !== saved.points.length * DIMENSIONS) throw new Error(`${graphPath}: ${saved.points.length} points, ${vectors.length} vector values`);
    // Each point gets an array of its own rather than a view into `vectors`: JavaScriptCore lists
    // every view of a buffer on the buffer and walks that list at every collection, even the
    // smallest, which 300,000 views (100k learnings of each kind) made 1.1 ms longer.
    for (const [n, [key, id, payload]] of saved.points.entries()) {
      partition.remember(key, { id, payload, unit: vectors.slice(n * DIMENSIONS, (n + 1) * DIMENSIONS) });
    }
    if (graphSize !== partition.size) throw new Error(`graph ${graphPath} holds ${graphSize} points, its list ${partition.size}`);
    return partition;
  }
}

/** The vector scaled to unit length, as a search's query and every stored point are compared. */
export function unitOf(vector: ArrayLike<number>): Float32Array {
  const unit = new Float32Array(vector);
  const norm = Math.sqrt(squaredLength(unit));
  if (norm > 0) for (let i = 0; i < unit.length; i++) unit[i]! /= norm;
  return unit;
}

/**
 * The similarity of `query` to each point's unit vector, in the points' order (the first
 * `points.length` values of the array returned). Eight points at a time, each with a sum of its
 * own: their vectors lie apart in memory, cold after the query's embedding, and eight read side by
 * side wait for memory together where one at a time waits eight times.
 */
function similaritiesTo(query: Float32Array, points: readonly StoredPoint[]): Float64Array {
  const out = new Float64Array(points.length + 8);
  const n = query.length;
  // A last group of fewer than eight repeats the last point, whose sums land past the points' end.
  const last = points.length - 1;
  for (let at = 0; at < points.length; at += 8) {
    const a = points[at]!.unit;
    const b = points[Math.min(at + 1, last)]!.unit;
    const c = points[Math.min(at + 2, last)]!.unit;
    const d = points[Math.min(at + 3, last)]!.unit;
    const e = points[Math.min(at + 4, last)]!.unit;
    const f = points[Math.min(at + 5, last)]!.unit;
    const g = points[Math.min(at + 6, last)]!.unit;
    const h = points[Math.min(at + 7, last)]!.unit;
    let sa = 0;
    let sb = 0;
    let sc = 0;
    let sd = 0;
    let se = 0;
    let sf = 0;
    let sg = 0;
    let sh = 0;
    for (let i = 0; i < n; i++) {
      const x = query[i]!;
      sa += x * a[i]!;
      sb += x * b[i]!;
      sc += x * c[i]!;
      sd += x * d[i]!;
      se += x * e[i]!;
      sf += x * f[i]!;
      sg += x * g[i]!;
      sh += x * h[i]!;
    }
    out[at] = sa;
    out[at + 1] = sb;
    out[at + 2] = sc;
    out[at + 3] = sd;
    out[at + 4] = se;
    out[at + 5] = sf;
    out[at + 6] = sg;
    out[at + 7] = sh;
  }
  return out;
}

function squaredLength(vector: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  return sum;
}
