import type { endpoints } from "@als/contract";
import { listHeldRecords } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/streams/{stream_id}/held (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => listHeldRecords(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.listHeld>, "handle">;
