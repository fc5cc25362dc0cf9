import { AppError, type ProjectConfig, type RetrievalExperiment, type SetConfigRequest, type UpdateConfigRequest } from "@als/contract";
import type { Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { changeProjectConfig } from "./change-config.ts";
import { withDefaultsAsNull } from "./config-view.ts";
import { checkOfflineTunerRequest } from "./offline-tuner.ts";

/**
 * Replaces the project's configuration (set_config): fields the request omits return to their
 * defaults, except the retrieval experiment, which only its lifecycle changes.
 */
export async function setProjectConfig(deps: CoreDeps, scope: Scope, request: SetConfigRequest): Promise<ProjectConfig> {
  // shadow_mode_enabled is retired: accepted, never stored.
  const { retrieval_experiment: experiment, offline_tuner_config: offlineTuner, shadow_mode_enabled: _retired, ...rest } = request;
  const { retrieval_experiment_config: peerExperiment, retrieval_experiment_history: peerHistory, ...fields } = rest;
  checkOfflineTunerRequest(offlineTuner);
  const { current } = await changeProjectConfig(deps, scope, (stored) => ({
    ...withDefaultsAsNull(fields, deps.embedder.calibration),
    retrieval_experiment: keepExperiment(stored, experiment, { config: peerExperiment, history: peerHistory }),
  }));
  return current;
}

/**
 * Replaces the given top-level fields of the project's configuration (update_config), a nested
 * object whole, leaving the others as stored; the merged whole is validated before it is written.
 */
export async function updateProjectConfig(deps: CoreDeps, scope: Scope, patch: UpdateConfigRequest): Promise<ProjectConfig> {
  const { retrieval_experiment: experiment, shadow_mode_enabled: _retired, ...rest } = patch;
  const { retrieval_experiment_config: peerExperiment, retrieval_experiment_history: peerHistory, ...fields } = rest;
  const { current } = await changeProjectConfig(deps, scope, (stored) => ({
    ...stored,
    ...withDefaultsAsNull(fields, deps.embedder.calibration),
    retrieval_experiment: keepExperiment(stored, experiment, { config: peerExperiment, history: peerHistory }),
  }));
  return current;
}

/** The retrieval experiment fields of the peer service's configuration, as its clients send them. */
interface PeerExperimentFields {
  config: { experiment_id: string; holdout_percentage: number } | undefined;
  history: unknown[] | undefined;
}

/**
 * A save may leave the experiment out or send it back as stored; changing it is a 409. The same
 * holds for the peer service's names of it: retrieval_experiment_config is the active experiment
 * with its holdout share in percent, and this service keeps no history of stopped experiments.
 */
function keepExperiment(stored: ProjectConfig, sent: RetrievalExperiment | null | undefined, peer: PeerExperimentFields): RetrievalExperiment | null {
  const active = stored.retrieval_experiment;
  // Both went through the same schema, so equal values serialize alike.
  if (sent !== undefined && JSON.stringify(sent) !== JSON.stringify(active)) throw experimentConflict("retrieval_experiment");
  if (peer.config !== undefined) {
    const sameExperiment =
      active !== null && peer.config.experiment_id === active.experiment_id && Math.abs(peer.config.holdout_percentage - 100 * (1 - active.arm_split)) < 1e-9;
    if (!sameExperiment) throw experimentConflict("retrieval_experiment_config");
  }
  if (peer.history !== undefined && peer.history.length > 0) throw experimentConflict("retrieval_experiment_history");
  return active;
}

const experimentConflict = (field: string) =>
  new AppError("conflict", `${field} is owned by the experiment lifecycle and cannot be changed through the configuration`);
