import { AppError } from "@als/contract";
import type { Extractor, GenerationRunRecord, interactions, Scope } from "@als/db";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { requireLlm } from "./generate-window.ts";
import { queueGenerationRun } from "./queue-generation-run.ts";

/** Where each kind's extractor settings live in the project configuration (the refusal names it). */
const EXTRACTOR_CONFIG_FIELDS = { profile: "profile_extractor_config", playbook: "user_playbook_extractor_config" } as const;

/**
 * Queues a manual generation as a durable run (see generateLatestWindows) and returns it. Refused
 * unless the project allows manual triggering of the kind.
 */
export async function startManualGeneration(
  deps: CoreDeps,
  scope: Scope,
  kind: Extractor,
  filters: interactions.GenerationFilters,
): Promise<GenerationRunRecord> {
  requireLlm(deps);
  const config = await getProjectConfig(deps, scope);
  const field = EXTRACTOR_CONFIG_FIELDS[kind];
  if (!config[field].allow_manual_trigger) {
    // 409, not 422: the request is well formed; the project's current configuration refuses it, and
    // the same request succeeds once the setting changes.
    throw new AppError("conflict", `manual ${kind} generation is not allowed: set ${field}.allow_manual_trigger to true (update_config) to allow it`);
  }
  return queueGenerationRun(deps, scope, { kind: "manual", extractor: kind, params: filters, counts: { users: 0, learnings_created: 0 } });
}
