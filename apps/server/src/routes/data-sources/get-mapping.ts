import type { endpoints } from "@als/contract";
import { getMappingDocument } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/streams/{stream_id}/mapping (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => getMappingDocument(ctx.deps, ctx.scope, input.stream_id),
} satisfies Pick<Route<typeof endpoints.dataSources.getMapping>, "handle">;
