import { AppError, type RetrievalExperiment } from "@als/contract";
import { retrievalExperiments, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { changeProjectConfig } from "./change-config.ts";

/**
 * Starts the project's retrieval experiment: the lifecycle's way in, since saving the configuration
 * may not change it. Starting the running experiment again returns it unchanged (a retried step);
 * while another one runs, or when the id was an experiment's that ended, 409. The experiment's row
 * (retrieval_experiments, its history) is written in the configuration's transaction.
 */
export async function startRetrievalExperiment(
  deps: CoreDeps,
  scope: Scope,
  experiment: { experiment_id: string; arm_split?: number },
): Promise<RetrievalExperiment> {
  const { current } = await changeProjectConfig(
    deps,
    scope,
    (stored) => {
      const running = stored.retrieval_experiment;
      if (running && running.experiment_id !== experiment.experiment_id) {
        throw new AppError("conflict", `retrieval experiment ${running.experiment_id} is running; stop it before starting another`);
      }
      return { ...stored, retrieval_experiment: running ?? { ...experiment, started_at: deps.now() } };
    },
    async (tx, { previous, current }) => {
      if (previous.retrieval_experiment) return;
      const started = current.retrieval_experiment!;
      const earlier = await retrievalExperiments.findExperiment(tx, scope, started.experiment_id);
      if (earlier) throw new AppError("conflict", `retrieval experiment ids cannot be reused: ${started.experiment_id} ran before`);
      await retrievalExperiments.insertExperiment(tx, scope, { ...started, ended_at: null });
    },
  );
  return current.retrieval_experiment!;
}

/** Ends the project's retrieval experiment (its row keeps it, with when it ended); returns the one that ran, or null when none did. */
export async function endRetrievalExperiment(deps: CoreDeps, scope: Scope): Promise<RetrievalExperiment | null> {
  const { previous } = await changeProjectConfig(
    deps,
    scope,
    (stored) => ({ ...stored, retrieval_experiment: null }),
    async (tx, { previous }) => {
      if (previous.retrieval_experiment) await retrievalExperiments.endExperiment(tx, scope, previous.retrieval_experiment.experiment_id, deps.now());
    },
  );
  return previous.retrieval_experiment;
}
