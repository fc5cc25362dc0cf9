import type { Scope } from "@als/db";
import type { DurableWork } from "./durable-work.ts";
import { aggregationWork } from "./kinds/aggregation.ts";
import { collectionWork } from "./kinds/collection.ts";
import { evaluationWork } from "./kinds/evaluation.ts";
import { evaluationJobWork } from "./kinds/evaluation-job.ts";
import { generationRunWork } from "./kinds/generation-run.ts";
import { learningWork } from "./kinds/learning.ts";
import { outcomeInferenceWork } from "./kinds/outcome-inference.ts";
import { purgeWork } from "./kinds/purge.ts";
import { sampleWork } from "./kinds/sample.ts";

/**
 * Every kind of durable work, one entry each (kinds/*.ts). The embedded reconciler, the Temporal
 * scheduling, the worker's activities and its start-up recovery are built from this list: a new kind
 * is an entry here and its workflow (CODE_STYLE.md, "Durable work").
 */
export const DURABLE_WORK = [
  learningWork,
  aggregationWork,
  generationRunWork,
  purgeWork,
  evaluationWork,
  outcomeInferenceWork,
  evaluationJobWork,
  sampleWork,
  collectionWork,
] as const;

type Catalogue = (typeof DURABLE_WORK)[number];

/** The kinds of durable work an orchestrator runs. */
export type DurableKind = Catalogue["kind"];

/** The catalogue's entry of a kind. */
export function durableWork(kind: DurableKind): DurableWork {
  const work = DURABLE_WORK.find((entry) => entry.kind === kind);
  if (!work) throw new Error(`no durable work of kind ${kind}`);
  return work as DurableWork;
}

type OutcomeOf<W> = W extends DurableWork<string, string, string, infer Outcome> ? Outcome : never;

/** The activity of each entry's step: the workflow's input (the scope and the entry's id field) to the step's outcome. */
export type DurableActivities = {
  [W in Catalogue as W["workflow"]["activity"]]: (input: Scope & Record<W["workflow"]["idField"], string>) => Promise<OutcomeOf<W>>;
};
