import { z } from "zod";
import { UnixSeconds, UserId } from "./common.ts";

/** The subject of an erasure or an export: a user of the caller's project, and the caller's id for this request. */
export const GovernanceSubjectRequest = z
  .object({
    user_id: UserId.refine((id) => id.trim() !== "", "must not be blank"),
    request_id: z
      .string()
      .trim()
      .min(1, "must not be blank")
      .max(255)
      .describe("The caller's id of this request: an erasure is idempotent on (user_id, request_id); an export's is audited"),
  })
  .strict();

export const StreamPurgeRequest = GovernanceSubjectRequest.extend({ stream_id: z.string().min(1).max(255) });

export const PurgeOperationQuery = z.object({ purge_id: z.string().min(1).max(255) }).strict();

/**
 * Where an erasure stands. `status`: queued, running (retrying shows as running with its error),
 * complete, failed. `phase`: the step it is at (delete, check, audit, then physical_removal once
 * complete) or done.
 */
export const PurgeOperationStatus = z.object({
  purge_id: z.string(),
  subject_ref: z.string().describe("Minimized reference of the user: a keyed hash, the same for every erasure of this user in this project"),
  request_ref: z.string().describe("Minimized reference of the request_id"),
  status: z.enum(["queued", "running", "complete", "failed"]),
  phase: z
    .enum(["delete", "check", "audit", "physical_removal", "done"])
    .describe(
      "delete (the subject write barrier holds from the start), the final empty check, the audit write, physical_removal (the rows are gone and the status is complete; the bytes they left in the database files, its statistics and its WAL await the next pass), done",
    ),
  error_code: z
    .string()
    .nullable()
    .describe("A safe code: residual_subject_data (the final check found rows), vector_index_pending, storage_unavailable, internal_error"),
  error_detail: z.string().nullable().describe("Names tables, never data"),
  deleted_counts: z.record(z.string(), z.number().int()).describe("Rows removed so far, by table"),
  erasure_scope_cleanup: z
    .object({
      project_id: z.string(),
      source_staging_records_removed: z.number().int(),
      samples_removed: z.number().int(),
      other_projects_affected: z.literal(false),
    })
    .describe("What the erasure covered beyond the project's stored data: data-source staging (held records) and samples of this project"),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
  completed_at: UnixSeconds.nullable().describe("null until complete"),
  physically_removed_at: UnixSeconds.nullable().describe(
    "When the pass that vacuumed the erased rows out of the database files, replaced their planner statistics and retired the WAL ended; null before",
  ),
});

/** What erasing a user through a data-source stream would remove; nothing is erased. */
export const StreamPurgePreview = z.object({
  stream_id: z.string(),
  subject_ref: z.string().describe("The minimized reference the erasure would record"),
  scope: z.string().describe("What the erasure covers, in words"),
  estimated_counts: z.object({
    requests: z.number().int(),
    interactions: z.number().int(),
    profiles: z.number().int(),
    user_playbooks: z.number().int(),
    held_records: z.number().int().describe("Data-source staging of this project naming the user"),
    import_receipts: z.number().int().describe("Receipts kept as suppressions without the user"),
    samples: z.number().int().describe("Samples of this project whose records name the user"),
  }),
  erases_nothing: z.literal(true),
});

export const UserEraseResult = PurgeOperationStatus.extend({
  created: z.boolean().describe("false when this (user_id, request_id) had already started an erasure: that operation is returned"),
});

const ExportRows = z.array(z.record(z.string(), z.unknown()));

/**
 * What the service holds about one user in the caller's project, streamed: each section lists the
 * rows as stored (without embeddings, search vectors and the scope columns), in key order.
 */
export const UserExportBundle = z.object({
  format: z.literal("als.user_export"),
  version: z.literal(1),
  subject_ref: z.string(),
  user_id: z.string(),
  project_id: z.string(),
  exported_at: UnixSeconds,
  counts: z.record(z.string(), z.number().int()).describe("Rows of each section when the export began"),
  requests: ExportRows,
  interactions: ExportRows,
  profiles: ExportRows,
  profile_change_log: ExportRows,
  user_playbooks: ExportRows.describe("With lineage: aggregated_into (agent playbook ids) and review_decisions"),
  session_outcomes: ExportRows,
  search_evidence: ExportRows,
  learning_cursors: ExportRows.describe("Learning status: how far each extractor got, and its last failure"),
  llm_usage: ExportRows,
  learning_recoveries: ExportRows.describe("Held learning windows an operator skipped or retried"),
  pending_tool_calls: ExportRows.describe("Questions learning put to a person about the user, waiting or resolved"),
  extraction_runs: ExportRows.describe("Learning's extraction runs over the user's interactions"),
  evaluation_sessions: ExportRows.describe("The user's sessions sampled for evaluation, waiting or graded"),
  agent_success_evaluations: ExportRows.describe("The judge's verdicts on the user's sessions"),
  retrieved_learning_evaluations: ExportRows.describe("Per-learning verdicts on the responses of the user's sessions"),
  shadow_comparisons: ExportRows.describe("Shadow judge verdicts on the user's turns"),
  outcome_inferences: ExportRows.describe("Outcomes inferred for the user's sessions"),
  idempotency_keys: ExportRows.describe("Idempotency-Key records of the user's writes and what they answered, kept 24 hours"),
});
