import { ONBOARDING_SOURCE, type OnboardingMilestones } from "@als/contract";
import { type ConversationRequest, evaluations, type LearningOfUser, type OnboardingRunRecord, onboardingEvidence, type Scope } from "@als/db";
import { getProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { learningStatusOf, type RequestLearningStatus } from "../learning/learning-status.ts";

/** Learnings listed beside the status, oldest first. */
const LEARNINGS_SHOWN = 20;

/** The conversation a run follows: the published example's user and sessions, or the selected import's. */
export interface FollowedConversation {
  userId: string;
  sessionIds: string[];
  /** Its committed requests, oldest first. */
  requests: ConversationRequest[];
  imported: ConversationRequest | null;
}

export const exampleUserId = (runId: string) => `example-${runId}`;
export const exampleSessionIds = (runId: string) => [`example-${runId}`, `example-learn-${runId}`];

/** The published example of a run: requests of its user's example sessions from the onboarding source. */
export async function publishedSample(deps: CoreDeps, scope: Scope, runId: string): Promise<ConversationRequest[]> {
  return onboardingEvidence.requestsOfSessions(deps.db, scope, exampleUserId(runId), exampleSessionIds(runId), ONBOARDING_SOURCE);
}

export async function followedConversation(deps: CoreDeps, scope: Scope, run: OnboardingRunRecord): Promise<FollowedConversation> {
  if (run.conversation === "imported" && run.imported_request_id !== null) {
    const imported = (await onboardingEvidence.findConversationRequest(deps.db, scope, run.imported_request_id)) ?? null;
    // A selected import whose request was deleted since follows nothing until another is chosen.
    if (imported === null) return { userId: "", sessionIds: [], requests: [], imported: null };
    const requests = await onboardingEvidence.requestsOfSession(deps.db, scope, imported.user_id, imported.session_id);
    return { userId: imported.user_id, sessionIds: [imported.session_id], requests, imported };
  }
  return {
    userId: exampleUserId(run.run_id),
    sessionIds: exampleSessionIds(run.run_id),
    requests: await publishedSample(deps, scope, run.run_id),
    imported: null,
  };
}

/** What the run's milestones are verified from, read now. */
export interface OnboardingEvidence {
  followed: FollowedConversation;
  apiKeyExists: boolean;
  learning: RequestLearningStatus | null;
  learnings: LearningOfUser[];
  retrievedLearningIds: string[];
  evaluation: evaluations.SuccessResultRecord | undefined;
  evaluationEnabled: boolean;
  activeExperimentId: string | null;
  llmConfigured: boolean;
}

export async function gatherEvidence(deps: CoreDeps, scope: Scope, run: OnboardingRunRecord | undefined): Promise<OnboardingEvidence> {
  const config = await getProjectConfig(deps, scope);
  const followed = run ? await followedConversation(deps, scope, run) : { userId: "", sessionIds: [], requests: [], imported: null };
  const latest = followed.requests.at(-1);
  const learnings = followed.userId ? await onboardingEvidence.learningsOfUser(deps.db, scope, followed.userId, LEARNINGS_SHOWN) : [];
  const [apiKeyExists, learning, retrievedLearningIds, evaluation] = await Promise.all([
    onboardingEvidence.projectHasLiveApiKey(deps.db, scope),
    latest ? learningStatusOf(deps, scope, latest.request_id) : null,
    onboardingEvidence.learningsServedToApiKeys(
      deps.db,
      scope,
      learnings.map((learned) => learned.id),
    ),
    latestEvaluation(deps, scope, followed),
  ]);
  return {
    followed,
    apiKeyExists,
    learning,
    learnings,
    retrievedLearningIds,
    evaluation,
    evaluationEnabled: config.agent_success_config.sampling_rate > 0,
    activeExperimentId: config.retrieval_experiment?.experiment_id ?? null,
    llmConfigured: deps.llm !== undefined,
  };
}

/** The newest current verdict of the conversation's sessions. */
async function latestEvaluation(deps: CoreDeps, scope: Scope, followed: FollowedConversation) {
  const verdicts = await Promise.all(
    followed.sessionIds.map((sessionId) => evaluations.listSuccessResults(deps.db, scope, { userId: followed.userId, sessionId }, 1, 0)),
  );
  return verdicts.flat().sort((a, b) => b.created_at - a.created_at || b.result_id - a.result_id)[0];
}

export const NO_MILESTONES: OnboardingMilestones = {
  api_key_created: null,
  conversation_published: null,
  learnings_extracted: null,
  learning_viewed: null,
  learning_retrieved: null,
  session_graded: null,
  evaluation_viewed: null,
  experiment_reviewed: null,
  experiment_deferred: null,
};

/** Milestones of the conversation followed: a switch to another conversation starts them over. */
export const CONVERSATION_MILESTONES = [
  "conversation_published",
  "learnings_extracted",
  "learning_viewed",
  "learning_retrieved",
  "session_graded",
  "evaluation_viewed",
] as const satisfies readonly (keyof OnboardingMilestones)[];

/**
 * The run's milestones with those the evidence verifies now added, each at the time first seen
 * (a milestone once verified stays). Clients set only the viewing and experiment ones.
 */
export function verifiedMilestones(saved: OnboardingRunRecord["milestones"], evidence: OnboardingEvidence, now: number): OnboardingMilestones {
  const milestones: OnboardingMilestones = { ...NO_MILESTONES, ...saved };
  const verify = (name: keyof OnboardingMilestones, holds: boolean) => {
    if (holds && milestones[name] === null) milestones[name] = now;
  };
  verify("api_key_created", evidence.apiKeyExists);
  verify("conversation_published", evidence.followed.requests.length > 0);
  verify("learnings_extracted", evidence.learning?.status === "done" && evidence.learnings.length > 0);
  verify("learning_retrieved", evidence.retrievedLearningIds.length > 0);
  verify("session_graded", evidence.evaluation !== undefined);
  return milestones;
}
