import { AppError, type CreateProjectRequest, type ProjectListing } from "@als/contract";
import { organizations } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";
import { requireAdmin } from "./require-admin.ts";

/** A new project of the member's organisation (admins and owners); 409 when the organisation has one of that id. */
export async function createProject(
  deps: IdentityDeps,
  actor: SessionPrincipal,
  input: z.output<typeof CreateProjectRequest>,
): Promise<z.input<typeof ProjectListing>> {
  requireAdmin(actor, "create projects");
  const project = { projectId: input.project_id, name: input.name ?? input.project_id };
  const now = deps.now();
  if (!(await organizations.insertProject(deps.db, actor.orgId, project, now))) {
    throw new AppError("conflict", `the organisation already has a project ${input.project_id}`);
  }
  return { project_id: project.projectId, name: project.name, created_at: now };
}
