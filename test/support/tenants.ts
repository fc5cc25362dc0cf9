import { organizations } from "@als/db";
import { createApiKey, createOrganization, type IdentityDeps, openSession } from "@als/identity";

/** The bearer tokens of every credential kind one organisation can hold, for its `default` project. */
export interface Tenant {
  orgId: string;
  ownerId: string;
  fullKey: string;
  limitedKey: string;
  loginSession: string;
  governanceSession: string;
}

let tenants = 0;

/**
 * A new organisation (owner verified, governance entitlement granted) with a full and a limited key
 * on `default` and the owner's login and governance sessions, made through the identity package's
 * own functions, as the operator CLI does.
 */
export async function createTenant(deps: IdentityDeps, name = `tenant-${++tenants}`): Promise<Tenant> {
  const { orgId, owner } = await createOrganization(deps, {
    name,
    ownerEmail: `owner-${crypto.randomUUID()}@${name}.example`,
    ownerPassword: null,
    emailVerified: true,
  });
  await organizations.setGovernanceEntitlement(deps.db, orgId, true);
  const key = (access: "full" | "limited") => createApiKey(deps, orgId, { projectId: "default", name: `${access} key`, access, createdBy: owner.member_id });
  return {
    orgId,
    ownerId: owner.member_id,
    fullKey: (await key("full")).value,
    limitedKey: (await key("limited")).value,
    loginSession: (await openSession(deps, owner, "login")).token,
    governanceSession: (await openSession(deps, owner, "governance")).token,
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
