import type { MemberListing, MembersResponse } from "@als/contract";
import { type MemberRecord, members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";

export function toMemberListing(member: MemberRecord): z.input<typeof MemberListing> {
  return {
    member_id: member.member_id,
    email: member.email,
    role: member.role,
    email_verified: member.email_verified_at !== null,
    invited: member.invited,
    created_at: member.created_at,
  };
}

/** The members of the member's organisation, oldest first. */
export async function listMembers(deps: IdentityDeps, actor: SessionPrincipal): Promise<z.input<typeof MembersResponse>> {
  return { members: (await members.listMembers(deps.db, actor.orgId)).map(toMemberListing) };
}
