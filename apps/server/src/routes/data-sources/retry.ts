import type { endpoints } from "@als/contract";
import { applyRetry, writeOnce } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/retry (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => writeOnce(ctx.deps, ctx.scope, ctx.idempotencyKey, null, (record) => applyRetry(ctx.deps, ctx.scope, input, record)),
} satisfies Pick<Route<typeof endpoints.dataSources.retry>, "handle">;
