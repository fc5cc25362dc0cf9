import type { Endpoint } from "@als/contract";
import type { z } from "zod";
import type { RequestContext } from "./context.ts";

/** An endpoint of the contract with the handler that serves it, over REST and tRPC alike. */
export interface Route<E extends Endpoint = Endpoint> {
  endpoint: E;
  /** Gets the parsed input; returns what the endpoint's output schema parses (unknown keys are stripped). */
  handle(ctx: RequestContext, input: z.output<E["input"]>): Promise<z.input<E["output"]>>;
}

/** Serves a declared endpoint: `implement(endpoints.profiles.add, { async handle(ctx, input) {...} })`. */
export function implement<E extends Endpoint>(endpoint: E, route: Pick<Route<E>, "handle">): Route<E> {
  return { endpoint, handle: route.handle };
}
