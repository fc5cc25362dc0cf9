import type { ApiKeyListing } from "@als/contract";
import type { z } from "zod";
import { deleteApiKey } from "../api-keys.ts";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { toApiKeyListing } from "./list-api-keys.ts";
import { requireAdmin } from "./require-admin.ts";

/** Revokes the organisation's key of that prefix at once (admins and owners); 404 for an unknown prefix or another organisation's. */
export async function revokeApiKey(deps: IdentityDeps, actor: SessionPrincipal, prefix: string): Promise<z.input<typeof ApiKeyListing>> {
  requireAdmin(actor, "delete API keys");
  return toApiKeyListing(await deleteApiKey(deps, actor.orgId, prefix));
}
