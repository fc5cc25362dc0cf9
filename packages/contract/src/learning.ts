import { z } from "zod";

export const StallStateResponse = z.object({
  success: z.boolean(),
  stalled: z.boolean(),
  /** Why the provider refused: 'auth' (credentials) or 'billing'; null when not stalled. */
  reason: z.enum(["auth", "billing"]).nullable(),
  error_message: z.string().nullable(),
  notified_in_cc: z.boolean(),
  stalled_at: z.number().int().nullable(),
});

export const MarkNotifiedResponse = z.object({
  success: z.boolean(),
  /** False when there is no stall to be notified of. */
  notified_in_cc: z.boolean(),
});
