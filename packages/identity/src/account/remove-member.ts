import { AppError, type MemberListing } from "@als/contract";
import { members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { toMemberListing } from "./list-members.ts";
import { requireAdmin } from "./require-admin.ts";

/**
 * Removes a member of the organisation (admins and owners; an owner only by an owner) and with
 * them every session they hold. 404 for a member of another organisation (existence is not
 * revealed); 409 for the last owner, which would leave the organisation without anyone to run it.
 */
export async function removeMember(deps: IdentityDeps, actor: SessionPrincipal, memberId: string): Promise<z.input<typeof MemberListing>> {
  requireAdmin(actor, "remove members");
  const removed = await deps.db.transaction(async (tx) => {
    const member = await members.findMember(tx, memberId);
    if (member === null || member.org_id !== actor.orgId) throw AppError.notFound(`member ${memberId}`);
    if (member.role === "owner") {
      if (actor.role !== "owner") throw new AppError("forbidden", "only an owner can remove an owner");
      const owners = await members.lockOwners(tx, actor.orgId);
      if (owners.length <= 1) throw new AppError("conflict", "the last owner of an organisation cannot be removed");
    }
    return members.deleteMember(tx, actor.orgId, memberId);
  });
  // Removed by someone else between the read and the delete: gone either way.
  if (removed === null) throw AppError.notFound(`member ${memberId}`);
  return toMemberListing(removed);
}
