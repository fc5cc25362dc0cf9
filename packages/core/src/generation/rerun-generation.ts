import { interactions, type Extractor, type Scope } from "@als/db";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import type { Generation } from "../learning/extractor.ts";
import { EXTRACTOR_SPECS } from "../learning/learning-step.ts";
import { generateWindow, requireLlm, type GenerationDeps, type StartedGeneration } from "./generate-window.ts";
import { holdingUserLease } from "./holding-user-lease.ts";

/**
 * Starts regenerating a kind of learning from every interaction passing the filters (every user's
 * when none is named), window by window of window_size in stream order, as a PENDING generation for
 * upgrade_all_* to make current later. Each user's generation is deduplicated only against itself,
 * so it stands complete on its own instead of leaning on the CURRENT learnings it is meant to
 * replace; it replaces the PENDING generation an earlier rerun left unpromoted (promoting both would
 * duplicate every learning). The learning cursors stay where they are: a rerun rewrites a separate
 * generation, and learning still owes the CURRENT one whatever it has not covered yet.
 */
export async function startRerun(deps: CoreDeps, scope: Scope, kind: Extractor, filters: interactions.GenerationFilters): Promise<StartedGeneration> {
  const llm = requireLlm(deps);
  return { done: rerun({ ...deps, llm }, scope, kind, filters) };
}

async function rerun(deps: GenerationDeps, scope: Scope, kind: Extractor, filters: interactions.GenerationFilters): Promise<number> {
  const spec = EXTRACTOR_SPECS[kind];
  const config = await getProjectConfig(deps, scope);
  const generation: Generation = { status: "PENDING", agentVersion: filters.agentVersion };
  let created = 0;
  for (const userId of await interactions.usersWithInteractions(deps.db, scope, filters)) {
    // Under the user's lease, so two reruns of one user take turns: the later one replaces the
    // earlier one's generation instead of writing beside it.
    created += await holdingUserLease(deps, scope, userId, async () => {
      await spec.deleteGeneration(deps.db, scope, userId, generation);
      let written = 0;
      // Windows do not overlap: every interaction is read once, and deduplication against the
      // generation catches a fact that two windows both state.
      for (let afterSeq = 0; ; ) {
        const window = await interactions.interactionsBetween(deps.db, scope, { ...filters, userId, afterSeq, limit: config.window_size });
        if (window.length === 0) return written;
        written += await generateWindow(deps, scope, spec, config, { userId, window, generation });
        afterSeq = window.at(-1)!.seq;
      }
    });
  }
  return created;
}
