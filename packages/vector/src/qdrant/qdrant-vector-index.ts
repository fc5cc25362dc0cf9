import { QdrantClient } from "@qdrant/js-client-rest";
import { COLLECTION_NAMES, COLLECTIONS, type Collection, type PayloadKind } from "../collections.ts";
import { type PointRef, type VectorHit, type VectorIndex, VectorIndexUnavailableError, type VectorPoint, type VectorQuery } from "../vector-index.ts";
import { pointIdOf } from "./point-id.ts";
import { ORG_KEY, PROJECT_KEY, qdrantFilterOf, ROW_ID_KEY } from "./qdrant-filter.ts";

/** The database column is vector(384); the collections hold the same vectors. */
const DIMENSIONS = 384;

export interface QdrantSettings {
  url: string;
  apiKey?: string;
  /**
   * Starts the name of each collection (DEFAULT_COLLECTION_PREFIX when absent). Deployments sharing
   * one Qdrant server need one each: every deployment has the same local organisation and project,
   * so their points would otherwise take each other's places.
   */
  collectionPrefix?: string;
  /** How long one request may take before Qdrant counts as unavailable (DEFAULT_TIMEOUT_MS when absent). */
  timeoutMs?: number;
}

const DEFAULT_COLLECTION_PREFIX = "als_";
/** Far above a search (milliseconds) or a push of one batch (under a second); the client's own default is five minutes. */
const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The VectorIndex on a Qdrant server: one collection per searchable table (cosine, 384 dimensions),
 * each point carrying its row's id, project and filterable columns as payload, with a payload index
 * on every key a filter can name so filtered searches stay inside Qdrant's HNSW walk.
 */
export class QdrantVectorIndex implements VectorIndex {
  private readonly client: QdrantClient;
  private readonly prefix: string;

  constructor(settings: QdrantSettings) {
    // Compatibility is checked by the first request that fails, not by a request of its own at start.
    this.client = new QdrantClient({
      url: settings.url,
      ...(settings.apiKey && { apiKey: settings.apiKey }),
      timeout: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      checkCompatibility: false,
      // Uncompressed answers: asked for brotli (fetch's default Accept-Encoding), Qdrant streams a
      // search's few hundred bytes as its headers and a chunk written apart, and the chunk often
      // waits out the client's delayed ACK (40 ms on Linux) behind Nagle's algorithm on its socket.
      headers: { "accept-encoding": "identity" },
    });
    this.prefix = settings.collectionPrefix ?? DEFAULT_COLLECTION_PREFIX;
  }

  /** The Qdrant collection of a searchable table. */
  private qdrantName(collection: Collection): string {
    return `${this.prefix}${collection}`;
  }

  async ensureCollections(beforeMaking?: () => Promise<void>): Promise<boolean> {
    const missing: Collection[] = [];
    for (const collection of COLLECTION_NAMES) {
      if (!(await reachable(this.client.collectionExists(this.qdrantName(collection)))).exists) missing.push(collection);
    }
    if (missing.length > 0) await beforeMaking?.();
    for (const collection of missing) {
      const name = this.qdrantName(collection);
      try {
        await reachable(this.client.createCollection(name, { vectors: { size: DIMENSIONS, distance: "Cosine" } }));
      } catch (error) {
        // Another process made it first.
        if ((await reachable(this.client.collectionExists(name))).exists) continue;
        throw error;
      }
    }
    // Every collection, old or new, gets the payload indexes it lacks: a start killed while making them leaves the rest to the next.
    for (const collection of COLLECTION_NAMES) await this.ensurePayloadIndexes(collection);
    return missing.length > 0;
  }

  private async ensurePayloadIndexes(collection: Collection): Promise<void> {
    const name = this.qdrantName(collection);
    const indexed = (await reachable(this.client.getCollection(name))).payload_schema;
    const keys: Record<string, PayloadKind> = { [ORG_KEY]: "keyword", [PROJECT_KEY]: "keyword", ...COLLECTIONS[collection] };
    for (const [field_name, field_schema] of Object.entries(keys)) {
      if (indexed[field_name]) continue;
      await reachable(this.client.createPayloadIndex(name, { field_name, field_schema, wait: true }));
    }
  }

  async upsert(collection: Collection, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    await reachable(
      this.client.upsert(this.qdrantName(collection), {
        wait: true,
        points: points.map((point) => ({
          id: pointIdOf(collection, point),
          vector: point.vector,
          payload: { ...point.payload, [ORG_KEY]: point.scope.orgId, [PROJECT_KEY]: point.scope.projectId, [ROW_ID_KEY]: point.id },
        })),
      }),
    );
  }

  async delete(collection: Collection, refs: PointRef[]): Promise<void> {
    if (refs.length === 0) return;
    await reachable(this.client.delete(this.qdrantName(collection), { wait: true, points: refs.map((ref) => pointIdOf(collection, ref)) }));
  }

  async search(collection: Collection, query: VectorQuery): Promise<VectorHit[]> {
    const { points } = await reachable(
      this.client.query(this.qdrantName(collection), {
        query: [...query.vector],
        filter: qdrantFilterOf(collection, query.filter),
        limit: query.topK,
        ...(query.threshold !== undefined && { score_threshold: query.threshold }),
        with_payload: [ROW_ID_KEY],
      }),
    );
    return points.map((point) => ({ id: String(point.payload![ROW_ID_KEY]), similarity: point.score }));
  }
}

/**
 * A Qdrant that cannot be reached, answers with a server error, or lacks a collection (a server
 * that lost its storage; the sync makes them again) is storage that is unavailable (503), like a
 * database that is gone; an answer refusing the request otherwise is a bug and stays as it is.
 */
async function reachable<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status < 500 && status !== 404) throw error;
    throw new VectorIndexUnavailableError(error);
  }
}
