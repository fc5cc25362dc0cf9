import { AppError } from "@als/contract";
import { projectConfig, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Forgets what the deployment caches for the caller's organisation (admin/cache/invalidate): this
 * process at once, every other one when it hears the announcement (see followConfigChanges). The
 * answer says whether this process had anything cached. Naming another organisation is refused (403).
 */
export async function invalidateOrganisationCache(deps: CoreDeps, scope: Scope, orgId: string): Promise<boolean> {
  if (orgId !== scope.orgId) throw new AppError("forbidden", "org_id does not match the caller's organisation");
  const invalidated = deps.services.configs.forgetOrganisation(orgId, deps.now());
  await projectConfig.announceOrganisationInvalidated(deps.db, orgId);
  return invalidated;
}
