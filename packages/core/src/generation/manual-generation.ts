import { AppError } from "@als/contract";
import { interactions, type Extractor, type Scope } from "@als/db";
import { getProjectConfig, type ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { CURRENT_GENERATION } from "../learning/extractor.ts";
import { EXTRACTOR_SPECS } from "../learning/learning-step.ts";
import { generateWindow, requireLlm, type GenerationDeps, type StartedGeneration } from "./generate-window.ts";
import { holdingUserLease } from "./holding-user-lease.ts";

/** Where each kind's extractor settings live in the project configuration (the refusal names it). */
const EXTRACTOR_CONFIG_FIELDS = { profile: "profile_extractor_config", playbook: "user_playbook_extractor_config" } as const;

/**
 * Starts a manual generation: for each user in scope (the named one, or every user with matching
 * interactions), one window of their most recent window_size matching interactions (window_size
 * always has a value: the configuration's default), extracted as learning does it — written as
 * CURRENT and deduplicated against the CURRENT learnings. No cursor moves: learning still covers
 * the stream on its own. Refused unless the project allows manual triggering of the kind.
 */
export async function startManualGeneration(
  deps: CoreDeps,
  scope: Scope,
  kind: Extractor,
  filters: interactions.GenerationFilters,
): Promise<StartedGeneration> {
  const llm = requireLlm(deps);
  const config = await getProjectConfig(deps, scope);
  const field = EXTRACTOR_CONFIG_FIELDS[kind];
  if (!config[field].allow_manual_trigger) {
    // 409, not 422: the request is well formed; the project's current configuration refuses it, and
    // the same request succeeds once the setting changes.
    throw new AppError("conflict", `manual ${kind} generation is not allowed: set ${field}.allow_manual_trigger to true (update_config) to allow it`);
  }
  return { done: generateLatest({ ...deps, llm }, scope, kind, filters, config) };
}

async function generateLatest(
  deps: GenerationDeps,
  scope: Scope,
  kind: Extractor,
  filters: interactions.GenerationFilters,
  config: ProjectConfig,
): Promise<number> {
  let created = 0;
  for (const userId of await interactions.usersWithInteractions(deps.db, scope, filters)) {
    created += await holdingUserLease(deps, scope, userId, async () => {
      const window = await interactions.latestInteractions(deps.db, scope, { ...filters, userId }, config.window_size);
      return generateWindow(deps, scope, EXTRACTOR_SPECS[kind], config, { userId, window, generation: CURRENT_GENERATION });
    });
  }
  return created;
}
