import type { endpoints } from "@als/contract";
import { previewMapping } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/preview (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => previewMapping(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.preview>, "handle">;
