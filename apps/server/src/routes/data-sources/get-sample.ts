import type { endpoints } from "@als/contract";
import { getSample } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/samples/{sample_id} (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => getSample(ctx.deps, ctx.scope, input.sample_id),
} satisfies Pick<Route<typeof endpoints.dataSources.getSample>, "handle">;
