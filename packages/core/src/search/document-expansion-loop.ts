import type { Llm } from "@als/ai";
import { documentExpansion, type Scope } from "@als/db";
import { type BackgroundLoop, startBackgroundLoop } from "../background-loop.ts";
import type { CoreDeps } from "../deps.ts";
import { EXPANSION_LEASE_SECONDS, expandDocumentsStep } from "./document-expansion.ts";

/** How soon a new or edited learning of a project that enables expansion gets its terms, at most (plus the LLM call). */
const EXPANSION_INTERVAL_MS = 2000;
/** Steps (LLM calls) one project gets per pass before the next project's turn. */
const STEPS_PER_PASS = 8;
/** After a failed step the project waits 5 s, doubling per failure in a row, at most five minutes. */
const BACKOFF_SECONDS = { first: 5, max: 300 };

/**
 * Gives the learnings of every project that enables document expansion their terms, in the
 * embedded reconciler and in each full-mode worker: every two seconds, each project with rows
 * waiting (found through migration 0024's partial indexes) runs expansion steps under a lease,
 * taken for each step and longer than the step's bounded LLM call, so two workers never pay for the
 * same call; a worker killed in a step holds its project until the lease runs out (a minute;
 * the embedded reconciler frees its own at start). A project whose step fails (the provider is down,
 * refuses the key, answers nonsense) backs off exponentially; its rows stay pending, and so does
 * whatever a killed process left: the rows are the cursor.
 */
export function startDocumentExpansionLoop(deps: CoreDeps & { llm: Llm }, onError: (error: unknown) => void): BackgroundLoop {
  const failures = new Map<string, { count: number; retryAt: number }>();
  async function expandProject(scope: Scope): Promise<void> {
    const key = JSON.stringify(scope);
    const now = deps.now();
    if ((failures.get(key)?.retryAt ?? 0) > now) return;
    if (!(await documentExpansion.claimExpansionLease(deps.db, scope, now, now + EXPANSION_LEASE_SECONDS))) return;
    try {
      for (let step = 0; step < STEPS_PER_PASS; step++) {
        if (step > 0) await documentExpansion.renewExpansionLease(deps.db, scope, deps.now() + EXPANSION_LEASE_SECONDS);
        const progress = await expandDocumentsStep(deps, scope);
        // Nothing stored while rows remain: they were all edited meanwhile; the next pass takes them.
        if (progress.remaining === 0 || progress.expanded === 0) break;
      }
      failures.delete(key);
    } catch (error) {
      const count = (failures.get(key)?.count ?? 0) + 1;
      failures.set(key, { count, retryAt: deps.now() + Math.min(BACKOFF_SECONDS.first * 2 ** (count - 1), BACKOFF_SECONDS.max) });
      onError(error);
    } finally {
      await documentExpansion.releaseExpansionLease(deps.db, scope);
    }
  }
  return startBackgroundLoop(
    async () => {
      for (const scope of await documentExpansion.findScopesWithPendingExpansion(deps.db)) await expandProject(scope);
    },
    EXPANSION_INTERVAL_MS,
    onError,
  );
}
