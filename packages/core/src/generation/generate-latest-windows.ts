import { type GenerationRunOf, interactions, type Scope } from "@als/db";
import { getProjectConfig } from "../config/project-config.ts";
import { CURRENT_GENERATION } from "../learning/extractor.ts";
import { EXTRACTOR_SPECS } from "../learning/learning-step.ts";
import { type GenerationDeps, generateWindow } from "./generate-window.ts";
import { holdingUserLease } from "./holding-user-lease.ts";
import type { RunCursor } from "./run-cursor.ts";

/**
 * The work of a manual generation: for each user in scope (the named one, or every user with
 * matching interactions) in id order, one window of their most recent window_size matching
 * interactions (window_size always has a value: the configuration's default), extracted as learning
 * does it — written as CURRENT and deduplicated against the CURRENT learnings. No learning cursor
 * moves: learning still covers the stream on its own. A user's learnings commit with the run's move
 * past the user, so a run taken up again never extracts a user twice.
 */
export async function generateLatestWindows(deps: GenerationDeps, scope: Scope, run: GenerationRunOf<"manual">, cursor: RunCursor): Promise<void> {
  const config = await getProjectConfig(deps, scope);
  for (const userId of await interactions.usersWithInteractions(deps.db, scope, run.params, cursor.afterUser)) {
    await holdingUserLease(deps, scope, userId, cursor.leaseToken, async () => {
      const window = await interactions.latestInteractions(deps.db, scope, { ...run.params, userId }, config.window_size);
      await generateWindow(deps, scope, EXTRACTOR_SPECS[run.extractor], config, { userId, window, generation: CURRENT_GENERATION }, (tx, created) =>
        cursor.advance(tx, { add: { users: 1, learnings_created: created }, afterUser: userId }),
      );
    });
  }
}
