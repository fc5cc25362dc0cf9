import type { RequestContext } from "../../context.ts";

/**
 * Leaves work running after the response. This process runs it to the end (a restart loses it; the
 * caller can run it again). Full mode would start it on the worker as a Temporal workflow instead,
 * so it outlives the API process that was asked.
 */
export function inBackground(ctx: RequestContext, what: string, work: Promise<unknown>): void {
  work.catch((error: unknown) => ctx.log.error(`${what} failed`, { correlationId: ctx.correlationId, error: error instanceof Error ? error.message : String(error) }));
}
