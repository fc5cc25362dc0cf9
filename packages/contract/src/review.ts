import { z } from "zod";
import { TimeBound } from "./common.ts";

export const ReviewUserPlaybooksRequest = z
  .object({
    /** Inclusive bounds of the playbooks' creation time. */
    start_time: TimeBound,
    end_time: TimeBound,
    /** Applied newest first. */
    top_k: z.number().int().min(1).max(100).default(10),
    /** true: decide inline and write nothing; false: apply in the background and answer at once. */
    report_only: z.boolean().default(true),
  })
  .refine((value) => value.end_time > value.start_time, { message: "end_time must be after start_time", path: ["end_time"] });

export const REVIEW_DECISIONS = ["accept", "reject", "edit", "skip"] as const;

/** Why the reviewer decided as it did: the model picks one (grounded_useful for an accept); a skip is evidence_unavailable. */
export const REVIEW_REASON_CODES = [
  "grounded_useful",
  "unsupported_evidence",
  "generic",
  "speculative",
  "unsupported_causality",
  "unseen_artifact",
  "redundant",
  "late_trigger",
  "compound",
  "internal_status",
  "absence_inference",
  "not_agent_decision",
  "evidence_unavailable",
] as const;
export type ReviewReasonCode = (typeof REVIEW_REASON_CODES)[number];

const ReviewEdit = z.object({ trigger: z.string(), content: z.string(), rationale: z.string() });

export const ReviewUserPlaybooksResponse = z.object({
  success: z.boolean(),
  run_id: z.string(),
  results: z.array(
    z.object({
      user_playbook_id: z.number().int(),
      decision: z.enum(REVIEW_DECISIONS),
      reason: z.string(),
      reason_code: z.enum(REVIEW_REASON_CODES).describe("The reason as a code of the peer service's vocabulary, which its clients require"),
      /** The corrected playbook an edit proposes (report mode shows it; apply mode inserts it). */
      edited: ReviewEdit.nullable(),
      edit: ReviewEdit.nullable().describe("edited again (the name clients of the peer service read)"),
    }),
  ),
  report_only: z.boolean().describe("The mode the request asked for (for clients of the peer service)"),
  selected_count: z.number().int().describe("Playbooks reviewed (report mode) or queued for review (apply mode), for clients of the peer service"),
  accepted_count: z.number().int().describe("Decisions in results, per kind (0 in apply mode, whose results come later), for clients of the peer service"),
  edited_count: z.number().int().describe("See accepted_count"),
  rejected_count: z.number().int().describe("See accepted_count"),
  skipped_count: z.number().int().describe("See accepted_count"),
});
