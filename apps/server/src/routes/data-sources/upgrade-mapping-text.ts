import type { endpoints } from "@als/contract";
import { upgradeMappingText } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/mapping/upgrade-text (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => upgradeMappingText(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.upgradeMappingText>, "handle">;
