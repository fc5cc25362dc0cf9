import { AppError } from "@als/contract";
import { rejectAtDeadline } from "@als/core";

/**
 * Answers 504 (reason backstop_timeout) when `work` outlasts `ms`. The work itself is not stopped:
 * a write may still commit after the answer, which is why the contract tells publishers to
 * reconcile with the correlation id before retrying.
 */
export function withBackstop<T>(work: Promise<T>, ms: number, correlationId: string): Promise<T> {
  return rejectAtDeadline(
    work,
    performance.now() + ms,
    () => new AppError("backstop_timeout", "Request timeout", { reason: "backstop_timeout", correlation_id: correlationId }),
  );
}
