import type { endpoints } from "@als/contract";
import { rotateCredential } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/connections/{connection_id}/credential (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => rotateCredential(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.rotateCredential>, "handle">;
