import type { endpoints } from "@als/contract";
import { requestSample } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/samples (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => requestSample(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.requestSample>, "handle">;
