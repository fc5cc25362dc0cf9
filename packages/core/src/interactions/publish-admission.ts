import type { TransactionOptions } from "@als/db";
import { rejectAtDeadline } from "../concurrency/deadline.ts";
import { Slots } from "../concurrency/slots.ts";
import type { CoreDeps, PublishAdmissionSettings } from "../deps.ts";

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

/**
 * The slots of one process's publishes (ProcessServices.publishSlots): at most `concurrency` under
 * way, the rest wait in turn until the admission deadline `timeoutMs`.
 */
export class PublishSlots extends Slots {
  constructor(readonly settings: PublishAdmissionSettings) {
    super(settings.concurrency);
  }
}

/**
 * A publish that holds a slot. As TransactionOptions its signal stops the publish's transaction at
 * the deadline: a transaction that has not sent its COMMIT by then rolls back instead of committing
 * after the client was told 504 (one shared with other publishes rolls back, and they run again
 * alone: see SharedCommits).
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
 * Admits a publish under the process's publish admission (its PublishSlots' settings): at most
 * `concurrency` publishes are under way at once, and every publish is answered within `timeoutMs`
 * of its admission request. It waits for a slot until that deadline (PublishCapacityError past it:
 * 503, nothing committed); the admission it returns answers 504 through `answer` past the same
 * deadline (AdmissionTimeoutError). The storage's own failures before the deadline (503
 * storage_unavailable) pass through.
 */
export async function admitPublish(deps: CoreDeps, requestId: string): Promise<PublishAdmission> {
  const slots = deps.services.publishSlots;
  const { settings } = slots;
  const deadline = performance.now() + settings.timeoutMs;
  const release = await slots.take(deadline);
  if (!release) throw new PublishCapacityError(requestId, settings.timeoutMs);
  const expiry = new AbortController();
  return {
    signal: expiry.signal,
    answer(committing) {
      committing.then(release, release);
      return rejectAtDeadline(committing, deadline, () => new AdmissionTimeoutError(requestId, settings.timeoutMs), expiry);
    },
  };
}
