import { learning, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

export interface StallState {
  stalled: boolean;
  reason: "auth_error" | "billing_error" | null;
  error_message: string | null;
  notified_in_cc: boolean;
  stalled_at: number | null;
}

/** The project's learning stall: background extraction is paused after a provider auth or billing error. */
export async function getStallState(deps: CoreDeps, scope: Scope): Promise<StallState> {
  const stall = await learning.readStall(deps.db, scope);
  return {
    stalled: stall !== undefined,
    reason: stall ? (`${stall.reason}_error` as const) : null,
    error_message: stall?.error_message ?? null,
    notified_in_cc: stall?.notified_in_cc ?? false,
    stalled_at: stall?.stalled_at ?? null,
  };
}

/** Records that the operator was told about the stall; repeating it changes nothing. */
export async function markStallNotified(deps: CoreDeps, scope: Scope): Promise<boolean> {
  return learning.markStallNotified(deps.db, scope);
}
