import { endpoints } from "@als/contract";
import { invalidateOrganisationCache } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.admin.invalidateCache, {
  async handle({ deps, scope }, input) {
    const orgId = input?.org_id ?? scope.orgId;
    return { invalidated: await invalidateOrganisationCache(deps, scope, orgId), org_id: orgId };
  },
});
