import { vectorOutbox } from "@als/db";
import { type Collection, PgVectorIndex, type VectorIndex } from "@als/vector";
import type { CoreDeps } from "../deps.ts";
import { groupBy } from "../group-by.ts";
import { inVectorSpan } from "../tracing/vector-spans.ts";

type SyncDeps = Pick<CoreDeps, "db"> & { vectorIndex: VectorIndex };

export interface SyncProgress {
  /** Outbox entries pushed by this step. */
  pushed: number;
  /** Another drain held the outbox: nothing was done. */
  busy: boolean;
}

/**
 * At start-up of a process with a vector index, and after the index was out of reach: turns the
 * outbox triggers on and makes the index's missing collections. When either was new, the index
 * missed rows, so every row is noted for the drains (a rebuild); otherwise the outbox already holds
 * what changed. Each note commits before what it fills can look done (the triggers on, the
 * collections there), so a process killed in between notes again at its next start.
 */
export async function prepareVectorIndex(deps: SyncDeps): Promise<void> {
  const noted = await deps.db.transaction(async (tx) => {
    const enabledNow = await vectorOutbox.enableSync(tx);
    if (enabledNow) await vectorOutbox.noteAllRows(tx);
    return enabledNow;
  });
  await deps.vectorIndex.ensureCollections(noted ? undefined : () => vectorOutbox.noteAllRows(deps.db));
}

/**
 * Pushes up to `batch` outbox entries into the vector index: each noted row's current state read
 * from PostgreSQL is upserted, and a row that is gone (or has no vector) is deleted from the index.
 * The entries are removed after the push, unless their row changed again meanwhile. Idempotent:
 * re-pushing a row writes what the record holds. Holding the drain lock for the transaction keeps
 * two drains from pushing an older state of a row over a newer one.
 */
export function syncVectorIndexStep(deps: SyncDeps, batch: number): Promise<SyncProgress> {
  return deps.db.transaction(async (tx) => {
    if (!(await vectorOutbox.lockDrain(tx))) return { pushed: 0, busy: true };
    const entries = await vectorOutbox.oldestEntries(tx, batch);
    const record = new PgVectorIndex(tx);
    for (const [collection, noted] of groupBy(entries, (entry) => entry.collection as Collection)) {
      const refs = noted.map((entry) => ({ scope: { orgId: entry.org_id, projectId: entry.project_id }, id: entry.row_id }));
      const points = await record.readPoints(collection, refs);
      const present = new Set(points.map((point) => JSON.stringify([point.scope.orgId, point.scope.projectId, point.id])));
      await deps.vectorIndex.delete(
        collection,
        refs.filter((ref) => !present.has(JSON.stringify([ref.scope.orgId, ref.scope.projectId, ref.id]))),
      );
      // Only an index kept in step through the outbox is pushed to here: Qdrant (the in-process graph follows the change log).
      await inVectorSpan("upsert", "qdrant", collection, () => deps.vectorIndex.upsert(collection, points));
    }
    await vectorOutbox.removePushed(tx, entries);
    return { pushed: entries.length, busy: false };
  });
}

/** Re-pushes every row: the index is rebuilt from the record (PostgreSQL). */
export async function rebuildVectorIndex(deps: SyncDeps, batch: number): Promise<void> {
  await vectorOutbox.noteAllRows(deps.db);
  await drainVectorOutbox(deps, batch);
}

/** Runs sync steps until the outbox is empty or another drain holds it; an index that follows the record on its own drains itself. */
export async function drainVectorOutbox(deps: SyncDeps, batch: number): Promise<void> {
  if (deps.vectorIndex.drain) return deps.vectorIndex.drain();
  let progress: Awaited<ReturnType<typeof syncVectorIndexStep>>;
  do progress = await syncVectorIndexStep(deps, batch);
  while (!progress.busy && progress.pushed === batch);
}
