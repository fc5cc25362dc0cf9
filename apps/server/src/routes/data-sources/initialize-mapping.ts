import type { endpoints } from "@als/contract";
import { initializeMapping } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/mapping/initialize (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => initializeMapping(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.initializeMapping>, "handle">;
