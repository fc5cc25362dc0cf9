import { z } from "zod";

export const StallStateResponse = z.object({
  success: z.boolean(),
  stalled: z.boolean(),
  /** Why the provider refused: 'auth_error' (credentials) or 'billing_error'; null when not stalled (the peer service's values, which its clients parse). */
  reason: z.enum(["auth_error", "billing_error"]).nullable(),
  error_message: z.string().nullable(),
  notified_in_cc: z.boolean(),
  stalled_at: z.number().int().nullable(),
});

export const MarkNotifiedResponse = z.object({
  success: z.boolean(),
  /** False when there is no stall to be notified of. */
  notified_in_cc: z.boolean(),
});
