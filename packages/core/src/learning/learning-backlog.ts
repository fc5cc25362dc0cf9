import type { LearningBacklogResponse } from "@als/contract";
import { type Scope, serviceBacklog } from "@als/db";
import type { CoreDeps } from "../deps.ts";

/**
 * Whether learning keeps up in each project of the scope's organisation, and the organisation's
 * durable work not finished well, per project: the metrics' backlog narrowed to one tenant, whose
 * members may see their own projects' names.
 */
export async function learningBacklog(deps: CoreDeps, scope: Scope): Promise<LearningBacklogResponse> {
  const [lags, work] = await Promise.all([
    serviceBacklog.readOrganizationLearningLag(deps.db, scope.orgId),
    serviceBacklog.countOrganizationDurableWork(deps.db, scope.orgId),
  ]);
  const now = deps.now();
  return {
    success: true,
    projects: lags.map((lag) => ({
      project_id: lag.projectId,
      oldest_pending_at: Number(lag.oldestAt),
      lag_seconds: Math.max(0, now - Number(lag.oldestAt)),
      waiting_users: Number(lag.users),
    })),
    durable_work: work.map((row) => ({ project_id: row.projectId, kind: row.kind, status: row.status, count: Number(row.count) })),
    temporal_ui: deps.temporalUi ? { workflows_url: deps.temporalUi.workflowsUrl } : null,
  };
}
