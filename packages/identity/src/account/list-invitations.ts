import type { InvitationListing, InvitationsResponse } from "@als/contract";
import { type InvitationRecord, invitations } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { requireAdmin } from "./require-admin.ts";

export function toInvitationListing(invitation: InvitationRecord): z.input<typeof InvitationListing> {
  return { invitation_id: invitation.invitation_id, email: invitation.email, role: invitation.role, expires_at: invitation.expires_at };
}

/** The organisation's invitations that can still be accepted (admins and owners). */
export async function listInvitations(deps: IdentityDeps, actor: SessionPrincipal): Promise<z.input<typeof InvitationsResponse>> {
  requireAdmin(actor, "see invitations");
  return { invitations: (await invitations.listPendingInvitations(deps.db, actor.orgId, deps.now())).map(toInvitationListing) };
}
