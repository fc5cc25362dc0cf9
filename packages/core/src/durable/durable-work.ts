import type { Scope } from "@als/db";
import type { CollectionStepOutcome } from "../data-sources/collection/collection-step.ts";
import type { CoreDeps } from "../deps.ts";
import type { LearningStepOutcome } from "../learning/learning-step.ts";
import type { SessionTimerOutcome } from "./session-timer-step.ts";
import type { StepOutcome } from "./step-outcome.ts";

/** One piece of durable work: the user, operation, run, session or stream it is about. */
export interface WorkItem {
  scope: Scope;
  id: string;
}

/** What a step of any kind leaves for its orchestrator. */
export type DurableOutcome = StepOutcome | CollectionStepOutcome | SessionTimerOutcome | LearningStepOutcome;

/**
 * Where the embedded reconciler runs a kind (see Reconciler):
 * - `users`: lanes that each take one queued key at a time (as many as LEARNING concurrency), the
 *   key sleeping until the time its step names; the pass queues what findWaiting finds at start-up.
 * - `pass`: each pass steps every runnable item once (`stepsPerPass` while it has more to do now).
 * - `sessions`: each pass steps up to `batch` due items, as many at once as learning lanes, and
 *   only with an LLM provider configured (without one they wait, never dropped).
 * - `own`: a lane of its own beside the passes, one item at a time: its items run long (a rerun of
 *   every user) and the passes must not wait for them.
 */
export type ReconcilerLane = { lane: "users" } | { lane: "pass"; stepsPerPass?: number } | { lane: "sessions"; batch: number } | { lane: "own" };

/**
 * One kind of durable work, defined once: how it is found, stepped, recovered and run by either
 * orchestrator. The reconciler (embedded), the worker's start-up recovery and activities, and the
 * Temporal scheduling (full) are all built from these entries (catalogue.ts). Every step is
 * idempotent and fenced by a lease, so either orchestrator may call it again at any time.
 */
export interface DurableWork<
  Kind extends string = string,
  Activity extends string = string,
  IdField extends string = string,
  Outcome extends DurableOutcome = DurableOutcome,
> {
  kind: Kind;
  /** What a log line calls one item ("aggregation operation"). */
  noun: string;
  reconcile: ReconcilerLane;
  /** The items the reconciler runs now; `limit` bounds a `sessions` lane's take. Unset for `users`: they are queued as they are scheduled. */
  findRunnable?(deps: CoreDeps, limit: number): Promise<WorkItem[]>;
  /**
   * Recovery at a start, full mode: the items that may lack their workflow (the API committed them
   * but could not reach Temporal, or a worker ended a run that still waits); a worker schedules each.
   * In embedded mode, the `users` lane queues them.
   */
  findWaiting(deps: CoreDeps): Promise<WorkItem[]>;
  /**
   * Recovery at a start, embedded mode: the database belongs to this one process, so a lease still
   * held was held by this process before it crashed; its work is taken up again (from the start of
   * its unit, or from what it committed).
   */
  releaseLeases(deps: CoreDeps): Promise<void>;
  /** One idempotent attempt under `leaseToken` (unset: a fresh one); `stopping` ends a long step at its next commit. */
  step(deps: CoreDeps, scope: Scope, id: string, leaseToken?: string, stopping?: AbortSignal): Promise<Outcome>;
  /** Run after the kind's items in each pass (and by its workflow once the item is done), e.g. the physical removal of erased rows. */
  followUp?: { activity: string; step(deps: CoreDeps, leaseToken?: string, id?: string): Promise<StepOutcome> };
  /** How Temporal runs it in full mode. Names are recorded in the histories of running workflows: they stay. */
  workflow: {
    /** The workflow type (workflows/src/index.ts). */
    type: string;
    /** The activity that is `step`. */
    activity: Activity;
    /** The field of the workflow's and the activity's input that carries the id (beside orgId and projectId). */
    idField: IdField;
    /** The workflow id, a business id: a second start collides with the running workflow. Also the step's lease token. */
    id(item: WorkItem): string;
    /** Scheduling signals a running workflow (signal-with-start) with this; unset: a start that leaves a running one alone. */
    signal?: string;
    /** What the Temporal UI shows; never a user's content. */
    summary(item: WorkItem): string;
    /** What a log line says scheduling tried. */
    scheduling: string;
  };
}

/** Keeps the literal names of an entry in its type, so the activities' types follow from the catalogue. */
export function defineDurableWork<const Kind extends string, const Activity extends string, const IdField extends string, Outcome extends DurableOutcome>(
  work: DurableWork<Kind, Activity, IdField, Outcome>,
): DurableWork<Kind, Activity, IdField, Outcome> {
  return work;
}

/** Work items of rows that name their id in `field`. */
export function itemsOf<F extends string>(rows: (Scope & Record<F, string>)[], field: F): WorkItem[] {
  return rows.map((row) => ({ scope: { orgId: row.orgId, projectId: row.projectId }, id: row[field] }));
}
