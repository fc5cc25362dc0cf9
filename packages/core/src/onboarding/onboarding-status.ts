import {
  AppError,
  ONBOARDING_SOURCE,
  type OnboardingMilestones,
  type OnboardingRun,
  type OnboardingStatus,
  type OnboardingStep,
  WALKTHROUGH_VERSION,
} from "@als/contract";
import { type OnboardingRunRecord, onboardingEvidence, onboardingRuns, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { toSuccessResult } from "../evaluation/evaluation-results.ts";
import { exampleSessionIds, exampleUserId, gatherEvidence, NO_MILESTONES, type OnboardingEvidence, verifiedMilestones } from "./onboarding-evidence.ts";
import { onboardingSteps } from "./onboarding-steps.ts";

/** The agent version the example conversation is published with. */
export const EXAMPLE_AGENT_VERSION = "service-onboarding-example";

/** Saving a reconciled run retries this often when teammates' updates keep winning, then answers 409. */
const SAVE_ATTEMPTS = 3;

/** Only the organisation's default project has a walkthrough. */
export const isEligible = (scope: Scope) => scope.projectId === "default";

/** The project's current run, which the caller names: 404 without one, 409 when the caller's run is no longer current. */
export async function currentRunNamed(deps: CoreDeps, scope: Scope, runId: string): Promise<OnboardingRunRecord> {
  if (!isEligible(scope)) throw AppError.notFound(`an onboarding walkthrough in project ${scope.projectId} (only the default project has one)`);
  const run = await onboardingRuns.findCurrentRun(deps.db, scope);
  if (!run) throw AppError.notFound(`an onboarding run in project ${scope.projectId}: initialize it first`);
  if (run.run_id !== runId) throw new AppError("conflict", `run ${runId} is not the current onboarding run (${run.run_id}): read the status again`);
  return run;
}

/** The status as the evidence shows it now; saves nothing (GET). */
export async function onboardingStatus(deps: CoreDeps, scope: Scope): Promise<OnboardingStatus> {
  if (!isEligible(scope)) return ineligibleStatus(deps, scope);
  const run = await onboardingRuns.findCurrentRun(deps.db, scope);
  const evidence = await gatherEvidence(deps, scope, run);
  return statusOf(deps, scope, run && { ...run, milestones: verifiedMilestones(run.milestones, evidence, deps.now()) }, evidence);
}

/** Starts the project's run unless it has one, then reconciles and saves its milestones. */
export async function initializeOnboarding(deps: CoreDeps, scope: Scope): Promise<OnboardingStatus> {
  if (!isEligible(scope)) return ineligibleStatus(deps, scope);
  if (!(await onboardingRuns.findCurrentRun(deps.db, scope))) await startRun(deps, scope, undefined);
  return reconcile(deps, scope);
}

/**
 * fresh false: the same as initialize (idempotent); fresh true: a new run in place of the current
 * one, whose example records stay where they are. 404 on a project that is not eligible.
 */
export async function startOnboarding(deps: CoreDeps, scope: Scope, fresh: boolean): Promise<OnboardingStatus> {
  if (!isEligible(scope)) throw AppError.notFound(`an onboarding walkthrough in project ${scope.projectId} (only the default project has one)`);
  if (!fresh) return initializeOnboarding(deps, scope);
  const current = await onboardingRuns.findCurrentRun(deps.db, scope);
  await startRun(deps, scope, current);
  return reconcile(deps, scope);
}

/** Reconciles the current run's milestones with the persisted evidence and saves them. */
export async function refreshOnboarding(deps: CoreDeps, scope: Scope): Promise<OnboardingStatus> {
  if (!isEligible(scope)) return ineligibleStatus(deps, scope);
  return reconcile(deps, scope);
}

async function startRun(deps: CoreDeps, scope: Scope, replacing: OnboardingRunRecord | undefined): Promise<void> {
  const now = deps.now();
  const run: OnboardingRunRecord = {
    run_id: crypto.randomUUID().replaceAll("-", "").slice(0, 20),
    walkthrough_version: WALKTHROUGH_VERSION,
    agent_version: EXAMPLE_AGENT_VERSION,
    conversation: "published_sample",
    imported_request_id: null,
    // API-key and experiment setup are the project's, not the run's: a new run keeps them.
    milestones: replacing ? keepSetup(replacing.milestones) : {},
    viewed_evidence_ids: [],
    retrieved_learning_ids: [],
    selected_experiment_id: replacing?.selected_experiment_id ?? null,
    dismissed_at: null,
    revision: 1,
    created_at: now,
    updated_at: now,
  };
  const started = await deps.db.transaction((tx) =>
    onboardingRuns.startRun(tx, scope, run, replacing && { run_id: replacing.run_id, revision: replacing.revision }),
  );
  // Another member started or changed the run at the same moment: theirs stands (fresh false reads it).
  if (!started && replacing) throw new AppError("conflict", "the onboarding run changed while a new one was started: read the status again");
}

function keepSetup(milestones: OnboardingRunRecord["milestones"]): OnboardingRunRecord["milestones"] {
  const kept: OnboardingRunRecord["milestones"] = {};
  for (const name of ["api_key_created", "experiment_reviewed", "experiment_deferred"] as const) kept[name] = milestones[name] ?? null;
  return kept;
}

/** Reads, verifies and saves until the save is not overtaken by a teammate's (bounded). */
async function reconcile(deps: CoreDeps, scope: Scope): Promise<OnboardingStatus> {
  for (let attempt = 1; ; attempt++) {
    const run = await onboardingRuns.findCurrentRun(deps.db, scope);
    const evidence = await gatherEvidence(deps, scope, run);
    if (!run) return statusOf(deps, scope, undefined, evidence);
    const now = deps.now();
    const milestones = verifiedMilestones(run.milestones, evidence, now);
    const retrieved = [...new Set([...run.retrieved_learning_ids, ...evidence.retrievedLearningIds])];
    if (sameMilestones(run.milestones, milestones) && retrieved.length === run.retrieved_learning_ids.length) return statusOf(deps, scope, run, evidence);
    const saved = await onboardingRuns.saveRun(deps.db, scope, { ...run, milestones, retrieved_learning_ids: retrieved, updated_at: now }, run.revision);
    if (saved) return statusOf(deps, scope, saved, evidence);
    if (attempt === SAVE_ATTEMPTS) throw new AppError("conflict", "teammates updated the onboarding run at the same time: read the status again");
  }
}

function sameMilestones(saved: OnboardingRunRecord["milestones"], verified: OnboardingMilestones): boolean {
  return Object.entries(verified).every(([name, at]) => (saved[name] ?? null) === at);
}

async function ineligibleStatus(deps: CoreDeps, scope: Scope): Promise<OnboardingStatus> {
  const evidence = await gatherEvidence(deps, scope, undefined);
  return { ...(await statusOf(deps, scope, undefined, evidence)), eligible: false, steps: [] };
}

/** The status response of a run (undefined: not initialized) and the evidence read for it. */
export async function statusOf(deps: CoreDeps, scope: Scope, run: OnboardingRunRecord | undefined, evidence: OnboardingEvidence): Promise<OnboardingStatus> {
  const milestones: OnboardingMilestones = { ...NO_MILESTONES, ...run?.milestones };
  const steps: OnboardingStep[] = run
    ? onboardingSteps({
        milestones,
        llmConfigured: evidence.llmConfigured,
        evaluationEnabled: evidence.evaluationEnabled,
        activeExperimentId: evidence.activeExperimentId,
        learningStatus: evidence.learning?.status ?? null,
        learningFailure: evidence.learning?.reason ?? null,
        learningCount: evidence.learnings.length,
        publishHint: publishHint(run),
      })
    : [];
  const complete = (id: OnboardingStep["id"]) => steps.some((step) => step.id === id && step.complete);
  const evaluation = milestones.session_graded !== null && evidence.evaluation ? evidence.evaluation : undefined;
  return {
    project_id: scope.projectId,
    eligible: isEligible(scope),
    run: run ? runView(run, milestones, steps, evidence) : null,
    steps,
    project_empty: await onboardingEvidence.projectIsEmpty(deps.db, scope),
    show_full: run !== undefined && run.dismissed_at === null && !steps.every((step) => step.complete),
    core_complete: ["create_api_key", "publish_conversation", "extract_learnings", "retrieve_learning"].every((id) => complete(id as OnboardingStep["id"])),
    learning_status: evidence.learning?.status ?? null,
    learnings: evidence.learnings,
    evaluation_id: evaluation ? String(evaluation.result_id) : null,
    evaluation: evaluation ? toSuccessResult(evaluation) : null,
    evaluation_enabled: evidence.evaluationEnabled,
    active_experiment_id: evidence.activeExperimentId,
    prerequisites: { llm_configured: evidence.llmConfigured, api_key_exists: evidence.apiKeyExists },
  };
}

function publishHint(run: OnboardingRunRecord): string {
  if (run.conversation === "imported") return "the selected imported conversation has no committed request left: choose another or use the published sample";
  const [conversation, learn] = exampleSessionIds(run.run_id);
  return `publish the example with the API key: POST /api/publish_interaction with user_id ${exampleUserId(run.run_id)}, session_id ${conversation} (then ${learn}), source ${ONBOARDING_SOURCE}`;
}

function runView(run: OnboardingRunRecord, milestones: OnboardingMilestones, steps: OnboardingStep[], evidence: OnboardingEvidence): OnboardingRun {
  const imported = evidence.followed.imported;
  return {
    run_id: run.run_id,
    walkthrough_version: run.walkthrough_version,
    user_id: exampleUserId(run.run_id),
    session_id: exampleSessionIds(run.run_id)[1]!,
    source: ONBOARDING_SOURCE,
    agent_version: run.agent_version,
    conversation: run.conversation,
    publish_request_ids: evidence.followed.requests.map((request) => request.request_id),
    milestones,
    reason_codes: steps.flatMap((step) => (!step.complete && step.reason_code ? [step.reason_code] : [])),
    dismissed: run.dismissed_at !== null,
    dismissed_at: run.dismissed_at,
    viewed_evidence_ids: run.viewed_evidence_ids,
    retrieved_learning_ids: [...new Set([...run.retrieved_learning_ids, ...evidence.retrievedLearningIds])],
    selected_experiment_id: run.selected_experiment_id,
    imported_conversations: imported && run.conversation === "imported" ? [imported] : [],
    revision: run.revision,
    created_at: run.created_at,
    updated_at: run.updated_at,
  };
}
