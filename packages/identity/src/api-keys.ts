import { AppError } from "@als/contract";
import { type ApiKeyAccess, type ApiKeyRecord, apiKeys, organizations } from "@als/db";
import type { IdentityDeps } from "./identity-deps.ts";
import { hashSecret, newApiKeyValue, newId } from "./secret-tokens.ts";

export interface NewApiKey {
  projectId: string;
  name: string;
  access: ApiKeyAccess;
  /** The member who created it; null for the operator CLI. */
  createdBy: string | null;
}

/**
 * A new key bound to one project of the organisation. The value is returned here once and never
 * again: only its hash and its prefix are stored.
 */
export async function createApiKey(deps: IdentityDeps, orgId: string, input: NewApiKey): Promise<{ value: string; key: ApiKeyRecord }> {
  if (!(await organizations.projectExists(deps.db, orgId, input.projectId))) throw AppError.notFound(`project ${input.projectId}`);
  const { value, prefix } = newApiKeyValue();
  const key: ApiKeyRecord = {
    key_id: newId("key"),
    org_id: orgId,
    project_id: input.projectId,
    name: input.name,
    access: input.access,
    prefix,
    created_by: input.createdBy,
    created_at: deps.now(),
    last_used_at: null,
  };
  await apiKeys.insertApiKey(deps.db, { ...key, key_hash: hashSecret(value) });
  return { value, key };
}

/** Revokes the organisation's key of that prefix at once (404 when it has none). */
export async function deleteApiKey(deps: IdentityDeps, orgId: string, prefix: string): Promise<ApiKeyRecord> {
  const revoked = await apiKeys.revokeApiKeyByPrefix(deps.db, orgId, prefix, deps.now());
  if (revoked === null) throw AppError.notFound(`API key ${prefix}`);
  return revoked;
}
