import { AppError, type RetrievalExperiment } from "@als/contract";
import type { Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { changeProjectConfig } from "./change-config.ts";

/**
 * Starts the project's retrieval experiment: the lifecycle's way in, since saving the configuration
 * may not change it. Starting the running experiment again returns it unchanged (a retried step);
 * while another one runs, 409.
 */
export async function startRetrievalExperiment(
  deps: CoreDeps,
  scope: Scope,
  experiment: { experiment_id: string; arm_split?: number },
): Promise<RetrievalExperiment> {
  const { current } = await changeProjectConfig(deps, scope, (stored) => {
    const running = stored.retrieval_experiment;
    if (running && running.experiment_id !== experiment.experiment_id) {
      throw new AppError("conflict", `retrieval experiment ${running.experiment_id} is running; end it before starting another`);
    }
    return { ...stored, retrieval_experiment: running ?? { ...experiment, started_at: deps.now() } };
  });
  return current.retrieval_experiment!;
}

/** Ends the project's retrieval experiment; returns the one that ran, or null when none did. */
export async function endRetrievalExperiment(deps: CoreDeps, scope: Scope): Promise<RetrievalExperiment | null> {
  const { previous } = await changeProjectConfig(deps, scope, (stored) => ({ ...stored, retrieval_experiment: null }));
  return previous.retrieval_experiment;
}
