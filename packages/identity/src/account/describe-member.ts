import { AppError, type MeResponse } from "@als/contract";
import { members, organizations } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { toProjectListing } from "./list-projects.ts";

/** The member of the session, their organisation and its projects: what the portal shows first. */
export async function describeMember(deps: IdentityDeps, actor: SessionPrincipal): Promise<z.input<typeof MeResponse>> {
  const [member, organization, projects] = await Promise.all([
    members.findMember(deps.db, actor.memberId),
    organizations.findOrganization(deps.db, actor.orgId),
    organizations.listProjects(deps.db, actor.orgId),
  ]);
  // The session resolved a moment ago; a removal in between ends it like any other.
  if (member === null || organization === null) throw new AppError("unauthorized", "the session ended: the member was removed");
  return {
    member_id: member.member_id,
    email: member.email,
    role: member.role,
    org_id: organization.org_id,
    organization_name: organization.name,
    governance_entitled: organization.governance_entitled,
    projects: projects.map(toProjectListing),
  };
}
