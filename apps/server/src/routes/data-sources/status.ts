import type { endpoints } from "@als/contract";
import { getCollectionStatus } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/streams/{stream_id}/status (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => getCollectionStatus(ctx.deps, ctx.scope, input.stream_id),
} satisfies Pick<Route<typeof endpoints.dataSources.status>, "handle">;
