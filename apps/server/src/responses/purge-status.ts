import type { PurgeOperationStatus } from "@als/contract";
import type { PurgeOperationRecord } from "@als/db";
import type { z } from "zod";

const STATUS_OF_RUN = { queued: "queued", running: "running", retrying: "running", succeeded: "complete", failed: "failed" } as const;

/** The minimized wire form of a purge operation: references, status and counts; never the user id, the lease or the actor. */
export const toPurgeStatus = (operation: PurgeOperationRecord): z.input<typeof PurgeOperationStatus> => ({
  purge_id: operation.purge_id,
  subject_ref: operation.subject_ref,
  request_ref: operation.request_ref,
  status: STATUS_OF_RUN[operation.status],
  phase: operation.phase,
  error_code: operation.error_code,
  error_detail: operation.error_detail,
  deleted_counts: operation.progress.counts,
  // Staging (held records) and samples of this project only: the erasure's steps are scoped to it.
  erasure_scope_cleanup: {
    project_id: operation.project_id,
    source_staging_records_removed: operation.progress.counts.data_source_held ?? 0,
    samples_removed: operation.progress.counts.data_source_samples ?? 0,
    other_projects_affected: false,
  },
  created_at: operation.created_at,
  updated_at: operation.updated_at,
  completed_at: operation.status === "succeeded" ? operation.finished_at : null,
  physically_removed_at: operation.physically_removed_at,
});
