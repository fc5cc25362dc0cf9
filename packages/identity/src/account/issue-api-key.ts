import type { CreateApiKeyRequest, CreateApiKeyResponse } from "@als/contract";
import type { z } from "zod";
import { createApiKey } from "../api-keys.ts";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { requireAdmin } from "./require-admin.ts";

/** A new key of the organisation bound to one of its projects (admins and owners; 404 for a project it does not have). */
export async function issueApiKey(
  deps: IdentityDeps,
  actor: SessionPrincipal,
  input: z.output<typeof CreateApiKeyRequest>,
): Promise<z.input<typeof CreateApiKeyResponse>> {
  requireAdmin(actor, "create API keys");
  const { value, key } = await createApiKey(deps, actor.orgId, {
    projectId: input.project_id,
    name: input.name,
    access: input.access,
    createdBy: actor.memberId,
  });
  return { key: value, key_id: key.key_id, prefix: key.prefix, name: key.name, project_id: key.project_id, access: key.access, created_at: key.created_at };
}
