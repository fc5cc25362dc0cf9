import { StorageUnavailableError } from "@als/db";
import { QdrantClient } from "@qdrant/js-client-rest";
import { COLLECTION_NAMES, COLLECTIONS, type Collection, type PayloadKind } from "../collections.ts";
import type { PointRef, VectorHit, VectorIndex, VectorPoint, VectorQuery } from "../vector-index.ts";
import { pointIdOf } from "./point-id.ts";
import { ORG_KEY, PROJECT_KEY, qdrantFilterOf, ROW_ID_KEY } from "./qdrant-filter.ts";

/** The database column is vector(384); the collections hold the same vectors. */
const DIMENSIONS = 384;

export interface QdrantSettings {
  url: string;
  apiKey?: string;
}

/**
 * The VectorIndex on a Qdrant server: one collection per searchable table (cosine, 384 dimensions),
 * each point carrying its row's id, project and filterable columns as payload, with a payload index
 * on every key a filter can name so filtered searches stay inside Qdrant's HNSW walk.
 */
export class QdrantVectorIndex implements VectorIndex {
  private readonly client: QdrantClient;

  constructor(settings: QdrantSettings) {
    // Compatibility is checked by the first request that fails, not by a request of its own at start.
    this.client = new QdrantClient({ url: settings.url, ...(settings.apiKey && { apiKey: settings.apiKey }), checkCompatibility: false });
  }

  async ensureCollections(): Promise<boolean> {
    let made = false;
    for (const collection of COLLECTION_NAMES) {
      const name = qdrantName(collection);
      if ((await reachable(this.client.collectionExists(name))).exists) continue;
      try {
        await this.client.createCollection(name, { vectors: { size: DIMENSIONS, distance: "Cosine" } });
      } catch (error) {
        // Another process made it first.
        if ((await this.client.collectionExists(name)).exists) continue;
        throw error;
      }
      const keys: Record<string, PayloadKind> = { [ORG_KEY]: "keyword", [PROJECT_KEY]: "keyword", ...COLLECTIONS[collection] };
      for (const [field_name, field_schema] of Object.entries(keys)) {
        await this.client.createPayloadIndex(name, { field_name, field_schema, wait: true });
      }
      made = true;
    }
    return made;
  }

  async upsert(collection: Collection, points: VectorPoint[]): Promise<void> {
    if (points.length === 0) return;
    await reachable(
      this.client.upsert(qdrantName(collection), {
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
    await reachable(this.client.delete(qdrantName(collection), { wait: true, points: refs.map((ref) => pointIdOf(collection, ref)) }));
  }

  async search(collection: Collection, query: VectorQuery): Promise<VectorHit[]> {
    const { points } = await reachable(
      this.client.query(qdrantName(collection), {
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

/** Collections of this service are prefixed, so they can share a Qdrant server with others. */
function qdrantName(collection: Collection): string {
  return `als_${collection}`;
}

/**
 * A Qdrant that cannot be reached, or answers with a server error, is storage that is unavailable
 * (503), like a database that is gone; an answer refusing the request is a bug and stays as it is.
 */
async function reachable<T>(request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number" && status < 500) throw error;
    throw new StorageUnavailableError(error);
  }
}
