import { LOCAL_SCOPE } from "@als/db";
import type { Collection, PointRef, VectorIndex, VectorPoint } from "@als/vector";

/**
 * Stands in for the Qdrant server, which these machines lack (its own contract runs where
 * QDRANT_URL is set): it keeps what the sync pushed, so the test can compare it with the record.
 */
export class PushedPoints implements VectorIndex {
  readonly points = new Map<string, VectorPoint>();
  private made = false;
  private key = (collection: Collection, ref: PointRef) => JSON.stringify([collection, ref.scope, ref.id]);

  async ensureCollections(beforeMaking?: () => Promise<void>) {
    const madeNow = !this.made;
    if (madeNow) await beforeMaking?.();
    this.made = true;
    return madeNow;
  }
  async upsert(collection: Collection, points: VectorPoint[]) {
    for (const point of points) this.points.set(this.key(collection, point), point);
  }
  async delete(collection: Collection, refs: PointRef[]) {
    for (const ref of refs) this.points.delete(this.key(collection, ref));
  }
  async search(): Promise<never> {
    throw new Error("the sync never searches");
  }
  get(collection: Collection, id: string | number) {
    return this.points.get(this.key(collection, { scope: LOCAL_SCOPE, id: String(id) }));
  }
}
