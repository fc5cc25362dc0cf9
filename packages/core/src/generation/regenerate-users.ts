import { type GenerationRunOf, interactions, type Scope } from "@als/db";
import { getProjectConfig } from "../config/project-config.ts";
import type { Generation } from "../learning/extractor.ts";
import { EXTRACTOR_SPECS } from "../learning/learning-step.ts";
import { type GenerationDeps, generateWindow } from "./generate-window.ts";
import { holdingUserLease } from "./holding-user-lease.ts";
import type { RunCursor } from "./run-cursor.ts";

/**
 * The work of a rerun: per user in id order, the windows of window_size of all their matching
 * interactions, in stream order, as a PENDING generation for upgrade_all_* to make current later.
 * Each user's generation is deduplicated only against itself, so it stands complete on its own
 * instead of leaning on the CURRENT learnings it is meant to replace; it replaces the PENDING
 * generation an earlier rerun left unpromoted (promoting both would duplicate every learning). The
 * learning cursors stay where they are: a rerun rewrites a separate generation, and learning still
 * owes the CURRENT one whatever it has not covered yet. The run's cursor moves past a user once the
 * user is done: a run taken up again mid-user regenerates that user from the start, which replaces
 * what the attempt before wrote.
 */
export async function regenerateUsers(deps: GenerationDeps, scope: Scope, run: GenerationRunOf<"rerun">, cursor: RunCursor): Promise<void> {
  const spec = EXTRACTOR_SPECS[run.extractor];
  const filters = run.params;
  const config = await getProjectConfig(deps, scope);
  const generation: Generation = { status: "PENDING", agentVersion: filters.agentVersion };
  for (const userId of await interactions.usersWithInteractions(deps.db, scope, filters, cursor.afterUser)) {
    // Under the user's lease, so two reruns of one user take turns: the later one replaces the
    // earlier one's generation instead of writing beside it.
    await holdingUserLease(deps, scope, userId, cursor.leaseToken, async () => {
      await spec.deleteGeneration(deps.db, scope, userId, generation);
      let written = 0;
      // Windows do not overlap: every interaction is read once, and deduplication against the
      // generation catches a fact that two windows both state.
      for (let afterSeq = 0; ; ) {
        const window = await interactions.interactionsBetween(deps.db, scope, { ...filters, userId, afterSeq, limit: config.window_size });
        if (window.length === 0) break;
        written += await generateWindow(deps, scope, spec, config, { userId, window, generation }, (tx) => cursor.advance(tx));
        afterSeq = window.at(-1)!.seq;
      }
      await deps.db.transaction((tx) => cursor.advance(tx, { add: { users: 1, learnings_created: written }, afterUser: userId }));
    });
  }
}
