import type { endpoints } from "@als/contract";
import { listDataSources } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix} (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx) => listDataSources(ctx.deps, ctx.scope),
} satisfies Pick<Route<typeof endpoints.dataSources.list>, "handle">;
