import type { ProjectListing, ProjectsResponse } from "@als/contract";
import { organizations, type ProjectRecord } from "@als/db";
import type { z } from "zod";
import type { IdentityDeps } from "../identity-deps.ts";
import type { SessionPrincipal } from "../principal.ts";

export function toProjectListing(project: ProjectRecord): z.input<typeof ProjectListing> {
  return { project_id: project.project_id, name: project.name, created_at: project.created_at };
}

/** The projects of the member's organisation, oldest first (`default` leads). */
export async function listProjects(deps: IdentityDeps, actor: SessionPrincipal): Promise<z.input<typeof ProjectsResponse>> {
  return { projects: (await organizations.listProjects(deps.db, actor.orgId)).map(toProjectListing) };
}
