import { AppError } from "@als/contract";
import type { SessionPrincipal } from "../principal.ts";

/** 403 unless the member is an admin or an owner of the organisation: `action` says what was refused. */
export function requireAdmin(actor: SessionPrincipal, action: string): void {
  if (actor.role === "member") throw new AppError("forbidden", `only an admin or an owner of the organisation can ${action}`);
}
