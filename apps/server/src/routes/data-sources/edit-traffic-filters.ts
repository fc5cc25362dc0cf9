import type { endpoints } from "@als/contract";
import { editTrafficFilters } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/streams/{stream_id}/traffic-filters (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => editTrafficFilters(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.editTrafficFilters>, "handle">;
