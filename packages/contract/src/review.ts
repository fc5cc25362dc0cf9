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

export const ReviewUserPlaybooksResponse = z.object({
  success: z.boolean(),
  run_id: z.string(),
  results: z.array(
    z.object({
      user_playbook_id: z.number().int(),
      decision: z.enum(REVIEW_DECISIONS),
      reason: z.string(),
      /** The corrected playbook an edit proposes (report mode shows it; apply mode inserts it). */
      edited: z.object({ trigger: z.string(), content: z.string(), rationale: z.string() }).nullable(),
    }),
  ),
});
