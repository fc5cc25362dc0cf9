import type { RegisterRequest, RegisterResponse } from "@als/contract";
import { organizations } from "@als/db";
import type { z } from "zod";
import type { AccountDeps } from "../account-services.ts";
import { createOrganization } from "../organizations.ts";
import { mailVerificationLink } from "./mail-verification-link.ts";

/**
 * A new organisation (with its `default` project) and its owner, whose address is not verified
 * until the mailed link is opened; 409 when the address already has a login. When the mail cannot
 * be sent the registration is undone, so the same address can register again.
 */
export async function registerAccount(deps: AccountDeps, input: z.output<typeof RegisterRequest>): Promise<z.input<typeof RegisterResponse>> {
  const { orgId, owner } = await createOrganization(deps, {
    name: input.organization_name,
    ownerEmail: input.email,
    ownerPassword: input.password,
    emailVerified: false,
  });
  await mailVerificationLink(deps, owner, () => organizations.deleteOrganization(deps.db, orgId));
  return { member_id: owner.member_id, org_id: orgId, email: owner.email, email_verified: false };
}
