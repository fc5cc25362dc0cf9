import type { endpoints } from "@als/contract";
import { saveHistoryDraft } from "@als/core";
import type { Route } from "../../implement.ts";

/** PUT {prefix}/streams/{stream_id}/history-draft (both prefixes: the project is the request's scope). */
export default {
  handle: (ctx, input) => saveHistoryDraft(ctx.deps, ctx.scope, input),
} satisfies Pick<Route<typeof endpoints.dataSources.saveHistoryDraft>, "handle">;
