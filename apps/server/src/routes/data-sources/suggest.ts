import type { endpoints } from "@als/contract";
import { suggestMappings } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/suggestions (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => suggestMappings(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.suggest>, "handle">;
