import type { endpoints } from "@als/contract";
import { createConnection } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/connections (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => createConnection(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.createConnection>, "handle">;
