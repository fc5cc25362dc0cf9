import type { ApiKeyListing, ApiKeysResponse } from "@als/contract";
import { type ApiKeyRecord, apiKeys } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";

/** A key as a member sees it: never its value, which only its creation answer carried. */
export function toApiKeyListing(key: ApiKeyRecord): z.input<typeof ApiKeyListing> {
  return {
    key_id: key.key_id,
    prefix: key.prefix,
    name: key.name,
    project_id: key.project_id,
    access: key.access,
    created_at: key.created_at,
    last_used_at: key.last_used_at,
  };
}

/** The organisation's live keys, newest first. */
export async function listApiKeys(deps: IdentityDeps, actor: SessionPrincipal): Promise<z.input<typeof ApiKeysResponse>> {
  return { api_keys: (await apiKeys.listLiveApiKeys(deps.db, actor.orgId)).map(toApiKeyListing) };
}
