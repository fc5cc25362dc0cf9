import { AppError, type ProjectConfig, type RetrievalExperiment, type SetConfigRequest, type UpdateConfigRequest } from "@als/contract";
import type { Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { changeProjectConfig } from "./change-config.ts";
import { checkOfflineTunerRequest } from "./offline-tuner.ts";

/**
 * Replaces the project's configuration (set_config): fields the request omits return to their
 * defaults, except the retrieval experiment, which only its lifecycle changes.
 */
export async function setProjectConfig(deps: CoreDeps, scope: Scope, request: SetConfigRequest): Promise<ProjectConfig> {
  // shadow_mode_enabled is retired: accepted, never stored.
  const { retrieval_experiment: experiment, offline_tuner_config: offlineTuner, shadow_mode_enabled: _retired, ...fields } = request;
  checkOfflineTunerRequest(offlineTuner);
  const { current } = await changeProjectConfig(deps, scope, (stored) => ({
    ...fields,
    retrieval_experiment: keepExperiment(stored, experiment),
  }));
  return current;
}

/**
 * Replaces the given top-level fields of the project's configuration (update_config), a nested
 * object whole, leaving the others as stored; the merged whole is validated before it is written.
 */
export async function updateProjectConfig(deps: CoreDeps, scope: Scope, patch: UpdateConfigRequest): Promise<ProjectConfig> {
  const { retrieval_experiment: experiment, shadow_mode_enabled: _retired, ...fields } = patch;
  const { current } = await changeProjectConfig(deps, scope, (stored) => ({
    ...stored,
    ...fields,
    retrieval_experiment: keepExperiment(stored, experiment),
  }));
  return current;
}

/** A save may leave the experiment out or send it back as stored; changing it is a 409. */
function keepExperiment(stored: ProjectConfig, sent: RetrievalExperiment | null | undefined): RetrievalExperiment | null {
  // Both went through the same schema, so equal values serialize alike.
  if (sent !== undefined && JSON.stringify(sent) !== JSON.stringify(stored.retrieval_experiment)) {
    throw new AppError("conflict", "retrieval_experiment is owned by the experiment lifecycle and cannot be changed through the configuration");
  }
  return stored.retrieval_experiment;
}
