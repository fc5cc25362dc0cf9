import { physicalRemoval, subjectData } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { crashAt } from "../durable/crash-at.ts";
import type { StepOutcome } from "../durable/step-outcome.ts";

/** Longer than a pass over the largest tables; a process that died holding it is waited for this long (embedded start-up frees it at once). */
const PHYSICAL_REMOVAL_LEASE_SECONDS = 900;
/**
 * The least time between two passes: a pass vacuums every table an erasure writes, so erasures
 * completed close together wait for one pass rather than each running its own. With the pass's
 * own duration, it bounds how long the bytes of an erased user outlive their rows.
 */
export const PHYSICAL_REMOVAL_INTERVAL_SECONDS = 10;
/** How soon a pass that failed (the storage was unavailable) is tried again. */
const FAILED_RETRY_SECONDS = 30;

/**
 * One pass of physical removal, covering every completed erasure that waits for it (phase
 * physical_removal): the tables the erasures wrote are vacuumed (rewritten in embedded mode, where
 * no other session reads meanwhile and the files are the whole database) and re-analyzed, the old
 * statistics removed, the WAL retired; then each covered operation moves to done with the time.
 * Idempotent: a crash at any point leaves the operations waiting and the next pass does it all
 * again. `purgeId` (an erasure's workflow): done at once when that erasure waits for nothing.
 */
export async function removeErasedBytes(
  deps: Pick<CoreDeps, "db" | "now" | "crashPoints">,
  leaseToken: string = crypto.randomUUID(),
  purgeId?: string,
): Promise<StepOutcome> {
  if (purgeId ? !(await physicalRemoval.awaitsPhysicalRemoval(deps.db, purgeId)) : (await physicalRemoval.findAwaitingPhysicalRemoval(deps.db)).length === 0) {
    return { next: "done" };
  }
  const claim = await physicalRemoval.claimPhysicalRemoval(deps.db, leaseToken, deps.now(), PHYSICAL_REMOVAL_LEASE_SECONDS, PHYSICAL_REMOVAL_INTERVAL_SECONDS);
  if (!claim.claimed) return { next: "retry", at: claim.retryAt };
  try {
    // Taken under the lease: an erasure completed after this read waits for the next pass.
    const covered = (await physicalRemoval.findAwaitingPhysicalRemoval(deps.db)).map((each) => each.purgeId);
    if (covered.length === 0) {
      await physicalRemoval.releasePhysicalRemoval(deps.db, leaseToken);
      return { next: "done" };
    }
    const started = performance.now();
    crashAt(deps, "purge.before_physical_removal");
    await physicalRemoval.vacuumTables(deps.db, subjectData.PHYSICAL_REMOVAL_TABLES, deps.db.kind === "pglite");
    crashAt(deps, "purge.before_wal_retired");
    await physicalRemoval.retireWal(deps.db);
    await physicalRemoval.finishPhysicalRemoval(deps.db, leaseToken, covered, deps.now(), performance.now() - started);
    return { next: "done" };
  } catch (error) {
    await physicalRemoval.releasePhysicalRemoval(deps.db, leaseToken).catch(() => {});
    return { next: "retry", at: deps.now() + FAILED_RETRY_SECONDS, unexpected: `physical removal of erased rows failed: ${String(error)}` };
  }
}
