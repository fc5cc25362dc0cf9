import { AppError } from "@als/contract";
import type { Principal, SessionPrincipal } from "../principal.ts";

/**
 * The member acting through a session. The account endpoints accept only sessions, so the resolver
 * has refused anything else before a handler runs; this narrows the type and keeps it that way.
 */
export function requireMemberSession(principal: Principal): SessionPrincipal {
  if (principal.kind !== "session")
    throw new AppError("unauthorized", "the account endpoints need a login session: log in and send Authorization: Bearer <session token>");
  return principal;
}
