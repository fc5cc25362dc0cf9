import type { endpoints } from "@als/contract";
import { selectStream } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/connections/{connection_id}/stream (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => selectStream(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.selectStream>, "handle">;
