import type { endpoints } from "@als/contract";
import { promoteMapping } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/streams/{stream_id}/active-mapping (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => promoteMapping(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.promoteMapping>, "handle">;
