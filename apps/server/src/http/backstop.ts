import { AppError } from "@als/contract";

/**
 * Answers 504 (reason backstop_timeout) when `work` outlasts `ms`. The work itself is not stopped:
 * a write may still commit after the answer, which is why the contract tells publishers to
 * reconcile with the correlation id before retrying.
 */
export async function withBackstop<T>(work: Promise<T>, ms: number, correlationId: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("backstop_timeout", "Request timeout", { reason: "backstop_timeout", correlation_id: correlationId })), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
