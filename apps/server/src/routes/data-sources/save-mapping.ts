import type { endpoints } from "@als/contract";
import { saveMappingDraft } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/streams/{stream_id}/mapping (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => saveMappingDraft(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.saveMapping>, "handle">;
