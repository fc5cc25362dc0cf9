import type { endpoints } from "@als/contract";
import { extendBackfill } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/streams/{stream_id}/backfill-limit (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => extendBackfill(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.extendBackfill>, "handle">;
