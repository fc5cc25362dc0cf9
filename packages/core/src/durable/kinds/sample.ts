import { dataSourceSamples } from "@als/db";
import { runSampleStep } from "../../data-sources/sample-step.ts";
import { defineDurableWork, itemsOf } from "../durable-work.ts";

/** A data-source sample: a few traces read from the provider to try a mapping on. */
export const sampleWork = defineDurableWork({
  kind: "sample",
  noun: "data-source sample",
  reconcile: { lane: "pass" },
  findRunnable: async (deps) => itemsOf(await dataSourceSamples.findRunnableSamples(deps.db, deps.now()), "sampleId"),
  findWaiting: async (deps) => itemsOf(await dataSourceSamples.findRunnableSamples(deps.db, deps.now()), "sampleId"),
  releaseLeases: (deps) => dataSourceSamples.expireSampleLeases(deps.db, deps.now()),
  step: runSampleStep,
  workflow: {
    type: "dataSourceSampleWorkflow",
    activity: "sampleStep",
    idField: "sampleId",
    id: ({ id }) => id,
    summary: ({ scope, id }) => `Data-source sample ${id} (${scope.orgId}/${scope.projectId})`,
    scheduling: "start the data-source sample workflow",
  },
});
