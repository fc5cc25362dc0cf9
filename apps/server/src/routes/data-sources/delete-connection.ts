import type { endpoints } from "@als/contract";
import { deleteConnection } from "@als/core";
import type { Route } from "../../implement.ts";

/** DELETE {prefix}/connections/{connection_id} (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => deleteConnection(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.deleteConnection>, "handle">;
