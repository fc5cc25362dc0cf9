import type { Sql } from "../driver.ts";
import type { Scope } from "../scope.ts";

/** A walkthrough run of a project (migration 0029); milestones are Unix seconds by name (null or absent: not yet). */
export interface OnboardingRunRecord {
  run_id: string;
  walkthrough_version: number;
  agent_version: string;
  conversation: "published_sample" | "imported";
  imported_request_id: string | null;
  milestones: Record<string, number | null>;
  viewed_evidence_ids: string[];
  retrieved_learning_ids: string[];
  selected_experiment_id: string | null;
  dismissed_at: number | null;
  revision: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = `run_id, walkthrough_version, agent_version, conversation, imported_request_id, milestones, viewed_evidence_ids,
  retrieved_learning_ids, selected_experiment_id, dismissed_at, revision, created_at, updated_at`;

export async function findCurrentRun(sql: Sql, scope: Scope): Promise<OnboardingRunRecord | undefined> {
  const [run] = await sql.query<OnboardingRunRecord>(`SELECT ${COLUMNS} FROM onboarding_runs WHERE org_id = $1 AND project_id = $2 AND is_current`, [
    scope.orgId,
    scope.projectId,
  ]);
  return run;
}

/**
 * Makes `run` the project's current run; the one before stays as it was (its example records are
 * kept), no longer current. False when another request made a run current first (`replacing` is
 * what the caller read: undefined when there was none).
 */
export async function startRun(tx: Sql, scope: Scope, run: OnboardingRunRecord, replacing: { run_id: string; revision: number } | undefined): Promise<boolean> {
  if (replacing) {
    const demoted = await tx.query(
      "UPDATE onboarding_runs SET is_current = false WHERE org_id = $1 AND project_id = $2 AND run_id = $3 AND revision = $4 AND is_current RETURNING run_id",
      [scope.orgId, scope.projectId, replacing.run_id, replacing.revision],
    );
    if (demoted.length === 0) return false;
  }
  const inserted = await tx.query(
    `INSERT INTO onboarding_runs (org_id, project_id, run_id, walkthrough_version, agent_version, conversation, imported_request_id, milestones,
       viewed_evidence_ids, retrieved_learning_ids, selected_experiment_id, dismissed_at, revision, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15)
     ON CONFLICT (org_id, project_id) WHERE is_current DO NOTHING RETURNING run_id`,
    [
      scope.orgId,
      scope.projectId,
      run.run_id,
      run.walkthrough_version,
      run.agent_version,
      run.conversation,
      run.imported_request_id,
      run.milestones,
      run.viewed_evidence_ids,
      run.retrieved_learning_ids,
      run.selected_experiment_id,
      run.dismissed_at,
      run.revision,
      run.created_at,
      run.updated_at,
    ],
  );
  return inserted.length === 1;
}

/** Saves a changed run if nobody saved it since `readRevision`; the saved run, or undefined (a concurrent update won). */
export async function saveRun(sql: Sql, scope: Scope, run: OnboardingRunRecord, readRevision: number): Promise<OnboardingRunRecord | undefined> {
  const [saved] = await sql.query<OnboardingRunRecord>(
    `UPDATE onboarding_runs SET conversation = $5, imported_request_id = $6, milestones = $7::jsonb, viewed_evidence_ids = $8, retrieved_learning_ids = $9,
       selected_experiment_id = $10, dismissed_at = $11, revision = revision + 1, updated_at = $12
     WHERE org_id = $1 AND project_id = $2 AND run_id = $3 AND revision = $4 AND is_current RETURNING ${COLUMNS}`,
    [
      scope.orgId,
      scope.projectId,
      run.run_id,
      readRevision,
      run.conversation,
      run.imported_request_id,
      run.milestones,
      run.viewed_evidence_ids,
      run.retrieved_learning_ids,
      run.selected_experiment_id,
      run.dismissed_at,
      run.updated_at,
    ],
  );
  return saved;
}
