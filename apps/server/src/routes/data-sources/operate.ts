import type { endpoints } from "@als/contract";
import { operateCollection } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/operations (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => operateCollection(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.operate>, "handle">;
