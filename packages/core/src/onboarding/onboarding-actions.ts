import { AppError, ONBOARDING_SOURCE, type OnboardingStatus, type UpdateOnboardingRequest } from "@als/contract";
import { type OnboardingRunRecord, onboardingEvidence, onboardingRuns, type Scope } from "@als/db";
import type { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { CONVERSATION_MILESTONES, gatherEvidence, type OnboardingEvidence, publishedSample, verifiedMilestones } from "./onboarding-evidence.ts";
import { currentRunNamed, statusOf } from "./onboarding-status.ts";

type Update = z.output<typeof UpdateOnboardingRequest>;

const unrelated = (message: string) => new AppError("bad_request", message);

/**
 * Records what a member did on the current run; the progress is the project's, shared with its
 * teammates. 409 for a run that is no longer current or an update a teammate's overtook; 400 for
 * evidence that is not the run's.
 */
export async function updateOnboarding(deps: CoreDeps, scope: Scope, input: Update): Promise<OnboardingStatus> {
  const run = await currentRunNamed(deps, scope, input.run_id);
  const evidence = await gatherEvidence(deps, scope, run);
  const now = deps.now();
  const changed = await applyAction(deps, scope, { ...run, milestones: verifiedMilestones(run.milestones, evidence, now) }, input, evidence, now);
  const saved = await onboardingRuns.saveRun(deps.db, scope, { ...changed, updated_at: now }, run.revision);
  if (!saved) throw new AppError("conflict", "a teammate updated the onboarding run at the same time: read the status again");
  const after = await gatherEvidence(deps, scope, saved);
  return statusOf(deps, scope, { ...saved, milestones: verifiedMilestones(saved.milestones, after, now) }, after);
}

async function applyAction(
  deps: CoreDeps,
  scope: Scope,
  run: OnboardingRunRecord,
  input: Update,
  evidence: OnboardingEvidence,
  now: number,
): Promise<OnboardingRunRecord> {
  const evidenceId = input.evidence_id;
  const needEvidence = (): string => {
    if (evidenceId === undefined) throw AppError.validation([{ loc: ["body", "evidence_id"], msg: `${input.action} needs an evidence_id`, type: "missing" }]);
    return evidenceId;
  };
  const firstTime = (name: string) => ({ ...run.milestones, [name]: run.milestones[name] ?? now });
  switch (input.action) {
    case "dismiss":
      return { ...run, dismissed_at: run.dismissed_at ?? now };
    case "use_imported_conversation": {
      const request = await onboardingEvidence.findConversationRequest(deps.db, scope, needEvidence());
      if (!request || request.source === "" || request.source === ONBOARDING_SOURCE) {
        throw unrelated(`evidence_id ${evidenceId} is not a committed request of this project that came from a source`);
      }
      if (run.conversation === "imported" && run.imported_request_id === request.request_id) return run;
      return switchConversation({ ...run, conversation: "imported", imported_request_id: request.request_id });
    }
    case "use_published_sample": {
      noEvidence(input);
      if ((await publishedSample(deps, scope, run.run_id)).length === 0) {
        throw unrelated(
          `no published sample for run ${run.run_id}: publish it under user example-${run.run_id}, sessions example-${run.run_id} / example-learn-${run.run_id}, source ${ONBOARDING_SOURCE} (the selected import is kept)`,
        );
      }
      if (run.conversation === "published_sample") return run;
      return switchConversation({ ...run, conversation: "published_sample", imported_request_id: null });
    }
    case "view_learning": {
      const id = needEvidence();
      if (!evidence.learnings.some((learned) => learned.id === id)) throw unrelated(`evidence_id ${id} is not a learning of the run's conversation`);
      return { ...run, milestones: firstTime("learning_viewed"), viewed_evidence_ids: addOnce(run.viewed_evidence_ids, id) };
    }
    case "view_evaluation": {
      const id = needEvidence();
      if (evidence.evaluation === undefined || String(evidence.evaluation.result_id) !== id) {
        throw unrelated(`evidence_id ${id} is not the evaluation of the run's conversation`);
      }
      return { ...run, milestones: firstTime("evaluation_viewed"), viewed_evidence_ids: addOnce(run.viewed_evidence_ids, `evaluation:${id}`) };
    }
    case "defer_experiment":
      noEvidence(input);
      return { ...run, milestones: firstTime("experiment_deferred") };
    case "review_experiment": {
      const id = needEvidence();
      if (evidence.activeExperimentId !== id) throw unrelated(`evidence_id ${id} is not the project's running retrieval experiment`);
      return { ...run, milestones: firstTime("experiment_reviewed"), selected_experiment_id: id };
    }
  }
}

function noEvidence(input: Update): void {
  if (input.evidence_id !== undefined) {
    throw AppError.validation([{ loc: ["body", "evidence_id"], msg: `${input.action} takes no evidence_id`, type: "extra_forbidden" }]);
  }
}

/** Following another conversation starts its milestones over; API-key and experiment setup stay. */
function switchConversation(run: OnboardingRunRecord): OnboardingRunRecord {
  const milestones = { ...run.milestones };
  for (const name of CONVERSATION_MILESTONES) delete milestones[name];
  return { ...run, milestones, viewed_evidence_ids: [], retrieved_learning_ids: [] };
}

const addOnce = (ids: string[], id: string) => (ids.includes(id) ? ids : [...ids, id]);
