import type { endpoints } from "@als/contract";
import { activateStream, writeOnce } from "@als/core";
import type { Route } from "../../implement.ts";

/** POST {prefix}/streams/{stream_id}/activate (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => writeOnce(ctx.deps, ctx.scope, ctx.idempotencyKey, null, (record) => activateStream(ctx.deps, ctx.scope, input, record)),
} satisfies Pick<Route<typeof endpoints.dataSources.activate>, "handle">;
