import type { RunStatus } from "@als/db";

/**
 * What one attempt at a durable run leaves for its orchestrator: `done` (succeeded, failed or
 * cancelled), `retry` at a time, or `busy` (another live worker holds it, or this one stopped and
 * left it to the next: try again shortly).
 */
export type StepOutcome = ({ next: "done" } | { next: "retry"; at: number } | { next: "busy" }) & {
  /** An unexpected failure behind the outcome, for the orchestrator's log (the run keeps a safe code only). */
  unexpected?: string;
};

/** The commit of a worker that no longer holds its run: it must roll back and leave the run to its holder. */
export class LeaseLost extends Error {}

/** The outcome of a run this attempt could not claim or lost: what its stored state says. */
export function outcomeOfRun(run: { status: RunStatus | "cancelled"; retry_at: number | null } | undefined, now: number): StepOutcome {
  if (!run || run.status === "succeeded" || run.status === "failed" || run.status === "cancelled") return { next: "done" };
  if (run.status === "retrying") return { next: "retry", at: run.retry_at ?? now };
  return { next: "busy" };
}
