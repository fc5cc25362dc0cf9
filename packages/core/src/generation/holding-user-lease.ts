import { learning, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { LEARNING_LEASE_SECONDS } from "../learning/learning-step.ts";

/** How often a generation waiting for a user's lease asks again. */
const LEASE_POLL_MS = 250;

/**
 * Runs `work` under the user's learning lease, so that no other extraction of the user's learnings
 * runs beside it: a learning step or another generation would compare its candidates with the same
 * learnings, and neither would see what the other adds. Waits while another holds the lease, which
 * it frees when done or, if its worker died, when it expires. The token is the run's lease token:
 * a run's worker taking over from one that died with the same token (a retried Temporal activity)
 * takes the user's lease over at once.
 */
export async function holdingUserLease<T>(deps: CoreDeps, scope: Scope, userId: string, token: string, work: () => Promise<T>): Promise<T> {
  while (!(await learning.acquireUserLease(deps.db, scope, userId, token, deps.now(), LEARNING_LEASE_SECONDS))) {
    await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
  }
  try {
    return await work();
  } finally {
    await learning.releaseUserLease(deps.db, scope, userId, token);
  }
}
