import { AppError, type MemberSession } from "@als/contract";
import { LOCAL_SCOPE, members } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import { openSession } from "../sessions.ts";

/**
 * The member a local server's console acts as: the owner of the local organisation, the one that
 * holds what agents publish without a credential. It has no password (it cannot log in from
 * elsewhere) and a fixed id, so every process of one installation finds the same member.
 */
export const LOCAL_OPERATOR = {
  member_id: "mem_local_operator",
  org_id: LOCAL_SCOPE.orgId,
  // `.invalid` is reserved (RFC 2606): no one can register or be invited under this address.
  email: "operator@local.invalid",
  role: "owner",
} as const;

/**
 * A login session of the local operator, made on first use. The caller decides who may have it
 * (a local server, asked from the machine it runs on): this only makes the member and the session.
 */
export async function openLocalOperatorSession(deps: IdentityDeps): Promise<z.input<typeof MemberSession>> {
  const now = deps.now();
  await members.insertMember(deps.db, { ...LOCAL_OPERATOR, password_hash: null, email_verified_at: now, invited: false }, now);
  const member = await members.findMember(deps.db, LOCAL_OPERATOR.member_id);
  // Its address taken by another login first (an operator's own insert): never a session for that login.
  if (member === null || member.org_id !== LOCAL_OPERATOR.org_id) {
    throw new AppError("conflict", `the local operator's address ${LOCAL_OPERATOR.email} belongs to another login`);
  }
  const session = await openSession(deps, member, "login");
  return { token: session.token, expires_at: session.expires_at, member_id: member.member_id, org_id: member.org_id, role: member.role };
}
