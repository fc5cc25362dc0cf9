import { InvalidateCacheRequest, InvalidateCacheResponse } from "@als/contract";
import { invalidateOrganisationCache } from "@als/core";
import { defineOperation } from "../../operation.ts";

export const invalidateCache = defineOperation({
  procedure: "admin.invalidateCache",
  method: "POST",
  path: "/api/admin/cache/invalidate",
  summary: "Forget what this server caches for the caller's organisation (403 for another org_id)",
  input: InvalidateCacheRequest,
  output: InvalidateCacheResponse,
  async handle({ deps, scope }, input) {
    const orgId = input?.org_id ?? scope.orgId;
    return { invalidated: invalidateOrganisationCache(deps, scope, orgId), org_id: orgId };
  },
});
