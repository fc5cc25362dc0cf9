import { AppError, type CreateGovernanceSessionRequest, type GovernanceSessionResponse } from "@als/contract";
import { members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { openSession } from "../sessions.ts";
import { requireMemberPassword } from "../sign-in-limits.ts";
import { requireAdmin } from "./require-admin.ts";

/**
 * A governance session (erasure, export) for an admin or owner of an entitled organisation who
 * typed the password again: 403 without the role or the entitlement, 401 for a wrong password,
 * 429 while the account is locked for this address (the sign-in's lock: guesses here count there).
 * A member who signs in only through a third party has no password and cannot open one. It ends
 * with the login session it was opened from, and when the entitlement is withdrawn.
 */
export async function openGovernanceSession(
  deps: IdentityDeps,
  actor: SessionPrincipal,
  input: z.output<typeof CreateGovernanceSessionRequest>,
  clientAddress: string | null,
): Promise<z.input<typeof GovernanceSessionResponse>> {
  requireAdmin(actor, "open governance sessions");
  if (!actor.governanceEntitled) throw new AppError("forbidden", "the organisation does not hold the governance entitlement (an operator grants it)");
  const member = await members.findMemberCredentials(deps.db, actor.email);
  if (member === null) throw new AppError("unauthorized", "the password is wrong");
  await requireMemberPassword(deps, member, input.password, clientAddress, "the password is wrong");
  const session = await openSession(deps, member, "governance", actor.sessionId);
  return { token: session.token, expires_at: session.expires_at };
}
