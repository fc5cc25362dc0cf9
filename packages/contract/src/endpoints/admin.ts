import { InvalidateCacheRequest, InvalidateCacheResponse } from "../config.ts";
import { defineResource } from "../endpoint.ts";

export const adminEndpoints = defineResource("admin", {
  invalidateCache: {
    method: "POST",
    path: "/api/admin/cache/invalidate",
    summary: "Forget what this server caches for the caller's organisation (403 for another org_id)",
    input: InvalidateCacheRequest,
    output: InvalidateCacheResponse,
    errors: ["forbidden"],
  },
});
