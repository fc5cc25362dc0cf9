import { ClientError } from "@als/client";

/** A write refused because a revision it named has moved since the page read it (another tab, a teammate): the contract's 409. */
export const isStaleRevision = (error: unknown): boolean => error instanceof ClientError && error.status === 409;

/**
 * How a part of the collection page reports its writes that name the collection's revisions: a
 * refusal as stale makes the page read the status again and say why, until a write succeeds.
 */
export interface RevisionWrites {
  onError(error: unknown): void;
  onSaved(): void;
}
