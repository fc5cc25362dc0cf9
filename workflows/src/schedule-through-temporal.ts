import { type DurableWork, durableWork, type Orchestrator } from "@als/core";
import type { Scope } from "@als/db";
import type { Client } from "@temporalio/client";
import { startUnlessRunning } from "./start-unless-running.ts";

/** Told when scheduling could not reach Temporal: what it tried (for a log line), the id, the error. */
export type ScheduleFailureReport = (what: string, id: string, error: unknown) => void;

/**
 * Starts the workflow of an item of durable work, as its catalogue entry says: a workflow whose id
 * is the item's business id, so one already running is left alone (or, for an entry with a signal,
 * signalled: signal-with-start). Throws what Temporal answered.
 */
export async function scheduleWorkflow(client: Client, taskQueue: string, work: DurableWork, scope: Scope, id: string): Promise<void> {
  const { workflow } = work;
  const options = {
    taskQueue,
    workflowId: workflow.id({ scope, id }),
    args: [{ orgId: scope.orgId, projectId: scope.projectId, [workflow.idField]: id }],
    staticSummary: workflow.summary({ scope, id }),
  };
  if (workflow.signal) await client.workflow.signalWithStart(workflow.type, { ...options, signal: workflow.signal, signalArgs: [] });
  else await startUnlessRunning(client, workflow.type, options);
}

/**
 * The orchestrator port in full mode: scheduling a kind starts, or wakes, the workflow that runs
 * it (scheduleWorkflow). Full mode's API processes and workers both need it, since the domain code
 * that schedules work runs in both: a publish in the API, a trace import in a worker's collection
 * step (its users' learning, its sessions' evaluations). What is scheduled is committed before, so
 * a call that cannot reach Temporal reports it and returns; a worker starting up schedules what did
 * not arrive. Client code, kept out of index.ts (the workflow bundle).
 */
export function scheduleThroughTemporal(client: Client, taskQueue: string, report: ScheduleFailureReport): Orchestrator {
  return {
    async schedule(kind, scope, id) {
      const work = durableWork(kind);
      try {
        await scheduleWorkflow(client, taskQueue, work, scope, id);
      } catch (error) {
        report(work.workflow.scheduling, id, error);
      }
    },
  };
}
