export interface BackoffPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/**
 * Runs `operation` until it succeeds, a failure is not transient, or the attempts run out. Waits
 * grow exponentially and are jittered so that clients failing together do not retry together.
 */
export async function retryWithBackoff<T>(operation: () => Promise<T>, isTransient: (error: unknown) => boolean, policy: BackoffPolicy): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (attempt >= policy.attempts || !isTransient(error)) throw error;
      const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      await new Promise((resolve) => setTimeout(resolve, ceiling / 2 + (Math.random() * ceiling) / 2));
    }
  }
}
