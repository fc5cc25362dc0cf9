import { AppError } from "@als/contract";

/** The 409 of a stale data-source revision: which resource, where it is now, and to re-read it. */
export function staleRevision(resource: "connection" | "stream", id: string, current: number, sent: number): AppError {
  return new AppError("conflict", `stale revision: ${resource} ${id} is at revision ${current}, not ${sent}; re-read the ${resource} and retry`, {
    current_revision: current,
  });
}

/** The 409 of a stale mapping draft revision (expected_revision). */
export function staleDraftRevision(streamId: string, current: number, sent: number): AppError {
  return new AppError("conflict", `stale revision: the mapping draft of stream ${streamId} is at revision ${current}, not ${sent}; re-read it and retry`, {
    current_revision: current,
  });
}

/** The 409 of a stale lifecycle revision of an activated stream's collection. */
export function staleLifecycleRevision(streamId: string, current: number, sent: number): AppError {
  return new AppError(
    "conflict",
    `stale lifecycle_revision: the collection of stream ${streamId} is at lifecycle revision ${current}, not ${sent}; re-read its status and retry`,
    { current_revision: current },
  );
}
