import type { endpoints } from "@als/contract";
import { validateMapping } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/mapping/validate (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => validateMapping(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.validateMapping>, "handle">;
