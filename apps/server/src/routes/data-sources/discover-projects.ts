import type { endpoints } from "@als/contract";
import { discoverConnectionProjects } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET {prefix}/connections/{connection_id}/projects (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => discoverConnectionProjects(ctx.deps, ctx.scope, input.connection_id),
} satisfies Pick<Route<typeof endpoints.dataSources.discoverProjects>, "handle">;
