import type { endpoints } from "@als/contract";
import { importEvidence } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/streams/{stream_id}/evidence (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => importEvidence(ctx.deps, ctx.scope, input.stream_id),
} satisfies Pick<Route<typeof endpoints.dataSources.evidence>, "handle">;
