import type { Endpoint } from "@als/contract";
import type { z } from "zod";
import type { RequestContext } from "./context.ts";

/** An endpoint of the contract with the handler that serves it, over REST and tRPC alike. */
export interface Route<E extends Endpoint = Endpoint> {
  endpoint: E;
  /** Gets the parsed input; returns what the endpoint's output schema parses (unknown keys are stripped). */
  handle(ctx: RequestContext, input: z.output<E["input"]>): Promise<z.input<E["output"]>>;
  /**
   * Set for a body too large to hold (an export): REST sends this JSON text as it is produced, in
   * bounded memory; `handle` collects it (tRPC, which answers one object).
   */
  stream?(ctx: RequestContext, input: z.output<E["input"]>): Promise<AsyncIterable<string>>;
}

/** Serves a declared endpoint: `implement(endpoints.profiles.add, { async handle(ctx, input) {...} })`. */
export function implement<E extends Endpoint>(endpoint: E, route: Pick<Route<E>, "handle">): Route<E> {
  return { endpoint, handle: route.handle };
}

/**
 * Serves a declared endpoint whose body is streamed (see Route.stream). The rows it streams are the
 * service's own records, shaped by the query that reads them; the tests parse whole streamed bodies
 * through the output schema.
 */
export function implementStreamed<E extends Endpoint>(endpoint: E, route: Required<Pick<Route<E>, "stream">>): Route<E> {
  return {
    endpoint,
    stream: route.stream,
    async handle(ctx, input) {
      let text = "";
      for await (const chunk of await route.stream(ctx, input)) text += chunk;
      return JSON.parse(text);
    },
  };
}
