import type { CoreDeps } from "../deps.ts";

/**
 * A crash point of durable work: when CRASH_POINTS names `point`, the process kills itself here with
 * SIGKILL, as a power cut would, so the crash tests can prove that accepted work completes exactly
 * once after a restart. Does nothing in service (CRASH_POINTS unset).
 */
export function crashAt(deps: Pick<CoreDeps, "crashPoints">, point: string): void {
  if (deps.crashPoints?.has(point)) process.kill(process.pid, "SIGKILL");
}
