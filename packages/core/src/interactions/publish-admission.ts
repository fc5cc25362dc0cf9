import type { Database, TransactionOptions } from "@als/db";
import { type CoreDeps, DEFAULT_PUBLISH_ADMISSION, type PublishAdmissionSettings } from "../deps.ts";

/**
 * 503 capacity_deadline_exceeded: every publish slot stayed taken until the deadline, so nothing was
 * committed and a retry is safe (it is a new request with a new id). `requestId` names this attempt
 * in logs and support requests only.
 */
export class PublishCapacityError extends Error {
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "capacity_deadline_exceeded";
  /** The fields the contract puts in the answer's body. */
  readonly details: { reason: "capacity_deadline_exceeded"; request_id: string };
  constructor(requestId: string, timeoutMs: number) {
    super(`publish capacity deadline exceeded: no publish slot came free within ${timeoutMs} ms; nothing was committed, retrying is safe`);
    this.name = "PublishCapacityError";
    this.details = { reason: "capacity_deadline_exceeded", request_id: requestId };
  }
}

/**
 * 504 admission_timeout: the publish had a slot but its commit was not confirmed by the deadline. It
 * may still commit (a COMMIT already sent cannot be called back): look the request id up
 * (get_requests, learning_status) before publishing again.
 */
export class AdmissionTimeoutError extends Error {
  /** The ERROR_TABLE code it answers as (see toAppError in @als/contract). */
  readonly errorCode = "admission_timeout";
  /** The fields the contract puts in the answer's body. */
  readonly details: { reason: "admission_timeout"; request_id: string };
  constructor(requestId: string, timeoutMs: number) {
    super(`publish admission was not confirmed within ${timeoutMs} ms; check request ${requestId} before retrying`);
    this.name = "AdmissionTimeoutError";
    this.details = { reason: "admission_timeout", request_id: requestId };
  }
}

/** The slots of one process's publishes: at most `concurrency` taken, the rest wait in turn. */
class PublishSlots {
  private taken = 0;
  private readonly waiting: { grant: () => void }[] = [];

  constructor(readonly settings: PublishAdmissionSettings) {}

  /** Slots taken and publishes waiting for one, now. */
  state(): AdmissionState {
    return { concurrency: this.settings.concurrency, taken: this.taken, waiting: this.waiting.length };
  }

  /** A slot's release function, or undefined when none came free before `deadline` (performance.now()). */
  take(deadline: number): Promise<(() => void) | undefined> {
    if (this.taken < this.settings.concurrency) {
      this.taken++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(this.releaser());
        },
      };
      const timer = setTimeout(
        () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve(undefined);
        },
        Math.max(0, deadline - performance.now()),
      );
      this.waiting.push(waiter);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the next waiter, so the count stays taken.
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.taken--;
    };
  }
}

/** One database is one process's publish path: its slots are shared by every publish of the process. */
const slotsOf = new WeakMap<Database, PublishSlots>();

/** A process's admission now (read when metrics are scraped). */
export interface AdmissionState {
  concurrency: number;
  taken: number;
  waiting: number;
}

/** The publish admission of the process whose database is `db`; undefined before its first publish. */
export function publishAdmissionState(db: Database): AdmissionState | undefined {
  return slotsOf.get(db)?.state();
}

/**
 * A publish that holds a slot. As TransactionOptions its signal stops the publish's transaction at
 * the deadline: a transaction that has not sent its COMMIT by then rolls back instead of committing
 * after the client was told 504 (one shared with other publishes rolls back, and they run again
 * alone: see commitShared).
 */
export interface PublishAdmission extends TransactionOptions {
  signal: AbortSignal;
  /**
   * `committing` (the publish's transaction, queued right after admission) within the deadline;
   * AdmissionTimeoutError past it. The slot is held until `committing` settles, whatever the answer:
   * the bound is on publishes under way, not on answers given.
   */
  answer<T>(committing: Promise<T>): Promise<T>;
}

/**
 * Admits a publish under the process's publish admission (PublishAdmissionSettings): at most
 * `concurrency` publishes are under way at once, and every publish is answered within `timeoutMs`
 * of its admission request. It waits for a slot until that deadline (PublishCapacityError past it:
 * 503, nothing committed); the admission it returns answers 504 through `answer` past the same
 * deadline (AdmissionTimeoutError). The storage's own failures before the deadline (503
 * storage_unavailable) pass through.
 */
export async function admitPublish(deps: CoreDeps, requestId: string): Promise<PublishAdmission> {
  const settings = deps.publishAdmission ?? DEFAULT_PUBLISH_ADMISSION;
  let slots = slotsOf.get(deps.db);
  if (!slots || slots.settings !== settings) {
    slots = new PublishSlots(settings);
    slotsOf.set(deps.db, slots);
  }
  const deadline = performance.now() + settings.timeoutMs;
  const release = await slots.take(deadline);
  if (!release) throw new PublishCapacityError(requestId, settings.timeoutMs);
  const expiry = new AbortController();
  return {
    signal: expiry.signal,
    async answer(committing) {
      committing.then(release, release);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => {
            const timedOut = new AdmissionTimeoutError(requestId, settings.timeoutMs);
            // The answer first: the abort makes the transaction fail too, and that failure must not win the race.
            reject(timedOut);
            expiry.abort(timedOut);
          },
          Math.max(0, deadline - performance.now()),
        );
      });
      try {
        return await Promise.race([committing, expired]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
