import { AppError, type RateClass } from "@als/contract";

/** Sustained requests per second and the burst a credential may spend at once, per route class. */
export interface RateLimit {
  perSecond: number;
  burst: number;
}

export type RateLimits = Record<RateClass, RateLimit>;

/**
 * Generous for one busy agent (the published peer client's own test suite, one process at full
 * speed, stays well under them), tight enough that one runaway key cannot take the capacity of
 * everyone else: a search costs a few milliseconds of CPU.
 */
export const DEFAULT_RATE_LIMITS: RateLimits = {
  search: { perSecond: 100, burst: 200 },
  publish: { perSecond: 200, burst: 400 },
  write: { perSecond: 100, burst: 200 },
  read: { perSecond: 200, burst: 400 },
  // Each attempt costs an argon2id hash (~30 ms of CPU); ten at once, then one a second, per client
  // address, counted in the database (see takeSignInAttempt), not by this class.
  sign_in: { perSecond: 1, burst: 10 },
};

interface Bucket {
  tokens: number;
  refilledAt: number;
}

/** Beyond this many buckets, full ones (idle credentials) are forgotten: they hold no information. */
const MAX_TRACKED_BUCKETS = 10_000;

/**
 * Token buckets per credential and route class, in this process's memory: a limit is a guard
 * against a runaway client, not an account balance, so it need not survive a restart or be shared
 * between API processes. Each process enforces it on its share of the traffic: behind a balancer
 * over N processes a credential gets up to N × burst at once and N × perSecond sustained. Sign-in
 * attempts, which guard passwords rather than capacity, are counted in the database instead.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: RateLimits,
    private readonly clockMs: () => number = () => performance.now(),
  ) {}

  /**
   * Takes one token for `credentialId` in `rateClass`, or throws 429 rate_limited with the seconds
   * to wait, its message naming `holder` (what was limited: "this API key", "this session").
   */
  take(credentialId: string, rateClass: RateClass, holder: string): void {
    const limit = this.limits[rateClass];
    const key = `${rateClass}:${credentialId}`;
    const now = this.clockMs();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, refilledAt: now };
    bucket.tokens = Math.min(limit.burst, bucket.tokens + ((now - bucket.refilledAt) / 1000) * limit.perSecond);
    bucket.refilledAt = now;
    if (bucket.tokens < 1) {
      this.buckets.set(key, bucket);
      const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / limit.perSecond));
      throw new AppError(
        "rate_limited",
        `too many ${rateClass} requests for ${holder} in this API process: at most ${limit.burst} at once, then ${limit.perSecond} a second`,
        {
          retry_after: retryAfter,
        },
      );
    }
    bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_TRACKED_BUCKETS) this.forgetIdle(now);
  }

  private forgetIdle(now: number): void {
    for (const [key, bucket] of this.buckets) {
      const limit = this.limits[key.slice(0, key.indexOf(":")) as RateClass];
      if (bucket.tokens + ((now - bucket.refilledAt) / 1000) * limit.perSecond >= limit.burst) this.buckets.delete(key);
    }
  }
}
