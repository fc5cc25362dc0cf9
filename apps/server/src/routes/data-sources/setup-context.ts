import type { endpoints } from "@als/contract";
import { setupContext } from "@als/core";
import type { Route } from "../../implement.ts";

/** GET /api/data-sources/setup-context: the API key's project is the destination. */
export const keyBoundSetupContext = {
  handle: (ctx, input) =>
    setupContext(ctx.deps, ctx.scope, { connection_id: input.connection_id, apiBasePath: "/api/data-sources", binding: "api_key_project" }),
} satisfies Pick<Route<typeof endpoints.dataSources.setupContext>, "handle">;

/** GET /api/projects/{project_id}/data-sources/setup-context: the URL's project is the destination. */
export const projectSetupContext = {
  handle: (ctx, input) =>
    setupContext(ctx.deps, ctx.scope, {
      connection_id: input.connection_id,
      apiBasePath: `/api/projects/${encodeURIComponent(ctx.scope.projectId)}/data-sources`,
      binding: "url_project",
    }),
} satisfies Pick<Route<typeof endpoints.projectDataSources.setupContext>, "handle">;
