import type { endpoints } from "@als/contract";
import { liveStream, suggestionModel } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/streams/{stream_id}/suggestions/model (both prefixes: the project is the request's scope). */
export default {
  async handle(ctx, input) {
    await liveStream(ctx.deps, ctx.scope, input.stream_id);
    return suggestionModel(ctx.deps);
  },
} satisfies Pick<Route<typeof endpoints.dataSources.suggestionModel>, "handle">;
