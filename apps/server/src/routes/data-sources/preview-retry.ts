import type { endpoints } from "@als/contract";
import { previewRetry } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/retry-preview (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => previewRetry(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.previewRetry>, "handle">;
