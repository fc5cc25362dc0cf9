import { AppError, type MemberListing } from "@als/contract";
import { type MemberRole, members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { toMemberListing } from "./list-members.ts";
import { requireAdmin } from "./require-admin.ts";

/**
 * Gives a member of the organisation another role. Admins and owners may; ownership is granted and
 * taken only by an owner, and the last owner keeps it (409), as removeMember rules. The owners are
 * locked first, so two owners demoting each other at once cannot leave none. The member's sessions
 * carry on with the new role at once: the resolver reads the role on every request.
 */
export async function changeMemberRole(
  deps: IdentityDeps,
  actor: SessionPrincipal,
  memberId: string,
  role: MemberRole,
): Promise<z.input<typeof MemberListing>> {
  requireAdmin(actor, "change roles");
  return deps.db.transaction(async (tx) => {
    const owners = await members.lockOwners(tx, actor.orgId);
    const member = await members.findMember(tx, memberId);
    if (member === null || member.org_id !== actor.orgId) throw AppError.notFound(`member ${memberId}`);
    if ((member.role === "owner" || role === "owner") && actor.role !== "owner") throw new AppError("forbidden", "only an owner can grant or take ownership");
    if (member.role === "owner" && role !== "owner" && owners.length <= 1) throw new AppError("conflict", "the last owner of an organisation stays owner");
    const changed = await members.updateMemberRole(tx, actor.orgId, memberId, role);
    return toMemberListing(changed!);
  });
}
