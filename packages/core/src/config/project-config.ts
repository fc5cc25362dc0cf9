import { ProjectConfig } from "@als/contract";
import { projectConfig, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

export type { ProjectConfig };

/**
 * The project's configuration, every field at its value or default (a project that never saved one
 * gets the defaults). Served from this process's cache when it can: callers share the object, so
 * they must not change it.
 */
export function getProjectConfig(deps: CoreDeps, scope: Scope): Promise<ProjectConfig> {
  // The load is shared by every caller until it expires: it runs on the process's database (a
  // search's own view of it is in its SearchContext), so that one search's deadline cannot fail it for the others.
  return deps.services.configs.read(scope, deps.now(), () => readProjectConfigNow(deps, scope));
}

/**
 * The project's configuration as stored now, past any cache: for a learning window, which waits on
 * the LLM for seconds anyway and must see a changed budget or window size at once, whichever process
 * changed it.
 */
export async function readProjectConfigNow(deps: CoreDeps, scope: Scope): Promise<ProjectConfig> {
  return parseStoredConfig(await projectConfig.readProjectConfig(deps.db, scope));
}

/** A stored configuration with the defaults of fields added since it was written. */
export function parseStoredConfig(stored: Record<string, unknown> | null): ProjectConfig {
  return ProjectConfig.parse(stored ?? {});
}
