import { type Extractor, type GenerationRunRecord, generationRuns, interactions, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/** The service names of the peer service's operation status, and the kind of learning each generates (0.2.8 says feedback for playbooks). */
export const OPERATION_SERVICES = { profile_generation: "profile", playbook_generation: "playbook", feedback_generation: "playbook" } as const satisfies Record<
  string,
  Extractor
>;
export type OperationService = keyof typeof OPERATION_SERVICES;

/** Where a generation run stands, in the shape the peer service's clients poll (OperationStatusInfo). */
export interface OperationStatus {
  service_name: OperationService;
  status: "in_progress" | "completed" | "failed" | "cancelled";
  started_at: number;
  completed_at: number | null;
  total_users: number;
  processed_users: number;
  failed_users: number;
  request_params: Record<string, unknown>;
  stats: Record<string, number>;
  error_message: string | null;
  progress_percentage: number;
}

const STATUS_OF_RUN = { queued: "in_progress", running: "in_progress", retrying: "in_progress", succeeded: "completed", failed: "failed" } as const;

/**
 * The latest rerun or manual generation of a kind in the project, as an operation status: its id is
 * request_params.operation_id (what rerun_*_generation answered as operation_id), its counts are
 * stats.total_generated (learnings written) and processed_users. Null when none has run.
 */
export async function getOperationStatus(deps: CoreDeps, scope: Scope, service: OperationService): Promise<OperationStatus | null> {
  const run = await generationRuns.findLatestGenerationOf(deps.db, scope, OPERATION_SERVICES[service]);
  if (!run || run.extractor === null) return null;
  const status = STATUS_OF_RUN[run.status];
  const counts = run.status === "succeeded" && run.result ? run.result : run.progress.counts;
  const processed = counts.users ?? 0;
  // Users are only known once the run is done; until then, those it will read (the same filters it runs with).
  const total = status === "in_progress" ? (await interactions.usersWithInteractions(deps.db, scope, run.params)).length : processed;
  return {
    service_name: service,
    status,
    started_at: run.created_at,
    completed_at: run.finished_at,
    total_users: total,
    processed_users: processed,
    failed_users: run.status === "failed" ? 1 : 0,
    request_params: { operation_id: run.run_id, kind: run.kind, ...filtersOf(run) },
    stats: { total_generated: counts.learnings_created ?? 0, ...counts },
    error_message: run.error_code,
    progress_percentage: status === "completed" ? 100 : total === 0 ? 0 : Math.min(100, (100 * processed) / total),
  };
}

/** A generation's filters under the request's field names. */
function filtersOf(run: GenerationRunRecord): Record<string, unknown> {
  if (run.kind === "review_apply") return {};
  const { userId, createdFrom, createdTo, source, agentVersion } = run.params;
  return {
    ...(userId !== undefined && { user_id: userId }),
    ...(createdFrom !== undefined && { start_time: createdFrom }),
    ...(createdTo !== undefined && { end_time: createdTo }),
    ...(source && { source }),
    ...(agentVersion !== undefined && { agent_version: agentVersion }),
  };
}
