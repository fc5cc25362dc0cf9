import type { endpoints } from "@als/contract";
import { applyRetry } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/retry (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => applyRetry(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.retry>, "handle">;
