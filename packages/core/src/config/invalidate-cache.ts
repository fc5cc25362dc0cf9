import { AppError } from "@als/contract";
import type { Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Forgets what this process caches for the caller's organisation (admin/cache/invalidate); false
 * when nothing was cached. Naming another organisation is refused (403).
 */
export function invalidateOrganisationCache(deps: CoreDeps, scope: Scope, orgId: string): boolean {
  if (orgId !== scope.orgId) throw new AppError("forbidden", "org_id does not match the caller's organisation");
  return deps.services.configs.forgetOrganisation(orgId, deps.now());
}
