import type { LearningStatus, OnboardingMilestones, OnboardingStep, OnboardingStepId } from "@als/contract";

/** What the steps are judged by: the run's saved milestones and what the evidence shows now. */
export interface StepFacts {
  milestones: OnboardingMilestones;
  llmConfigured: boolean;
  evaluationEnabled: boolean;
  activeExperimentId: string | null;
  learningStatus: LearningStatus | null;
  learningFailure: string | null;
  learningCount: number;
  /** How the example is to be published (the run's IDs), for the publish step's reason. */
  publishHint: string;
}

type Judged = Pick<OnboardingStep, "state" | "reason_code" | "reason">;

const done = (reason_code: string | null = null, reason: string | null = null): Judged => ({ state: "complete", reason_code, reason });
const ready = (reason_code: string, reason: string): Judged => ({ state: "ready", reason_code, reason });
const waiting = (reason_code: string, reason: string): Judged => ({ state: "waiting", reason_code, reason });
const blocked = (reason_code: string, reason: string): Judged => ({ state: "blocked", reason_code, reason });

/** The walkthrough's checklist, in order; each step's state follows from the facts alone. */
export function onboardingSteps(facts: StepFacts): OnboardingStep[] {
  const m = facts.milestones;
  const judged: [OnboardingStepId, Judged][] = [
    [
      "create_api_key",
      m.api_key_created ? done() : ready("needs_api_key", "create an API key for this project (the account page); the agent publishes and searches with it"),
    ],
    ["publish_conversation", m.conversation_published ? done() : ready("awaiting_publish", facts.publishHint)],
    ["extract_learnings", extraction(facts)],
    [
      "view_learning",
      m.learning_viewed
        ? done()
        : m.learnings_extracted
          ? ready("awaiting_view", "open one of the learnings extracted from the conversation")
          : blocked("needs_learnings", "waits for learnings extracted from the conversation"),
    ],
    ["retrieve_learning", retrieval(facts)],
    ["grade_session", grading(facts)],
    [
      "view_evaluation",
      m.evaluation_viewed
        ? done()
        : m.session_graded
          ? ready("awaiting_view", "open the evaluation of the conversation's session")
          : blocked("needs_evaluation", "waits for the session's evaluation"),
    ],
    ["set_up_experiment", experiment(facts)],
  ];
  return judged.map(([id, step]) => ({ id, complete: step.state === "complete", ...step }));
}

function extraction(facts: StepFacts): Judged {
  if (facts.milestones.learnings_extracted) return done();
  if (!facts.milestones.conversation_published) return blocked("needs_publish", "waits for the conversation to be published");
  if (!facts.llmConfigured) return blocked("llm_not_configured", "learning needs an LLM provider: set LLM_PROVIDER and its key on the server");
  if (facts.learningStatus === "failed") return blocked("learning_failed", facts.learningFailure ?? "learning from the conversation failed");
  if (facts.learningStatus === "done" && facts.learningCount === 0) {
    return ready("no_learnings", "learning finished without a learning: publish a conversation in which the user states a preference or a fact");
  }
  return waiting("learning_pending", "the service is learning from the conversation");
}

function retrieval(facts: StepFacts): Judged {
  if (facts.milestones.learning_retrieved) return done();
  if (!facts.milestones.learnings_extracted) return blocked("needs_learnings", "waits for learnings extracted from the conversation");
  if (!facts.milestones.api_key_created) return blocked("needs_api_key", "searching as the agent does needs an API key");
  return ready("awaiting_search", "search with the API key (e.g. POST /api/search with the example's user_id) until a learning of the conversation is served");
}

function grading(facts: StepFacts): Judged {
  if (facts.milestones.session_graded) return done();
  if (!facts.milestones.conversation_published) return blocked("needs_publish", "waits for the conversation to be published");
  if (!facts.evaluationEnabled) return blocked("evaluation_disabled", "agent_success_config.sampling_rate is 0: no session is graded");
  if (!facts.llmConfigured) return blocked("llm_not_configured", "grading needs an LLM provider: set LLM_PROVIDER and its key on the server");
  return waiting("evaluation_pending", "the session is graded once it has been quiet for the session inactivity delay");
}

function experiment(facts: StepFacts): Judged {
  if (facts.milestones.experiment_reviewed) return done();
  if (facts.milestones.experiment_deferred) return done("experiment_deferred", "deferred: run a retrieval experiment later");
  if (facts.activeExperimentId) return ready("awaiting_review", `review the results of the running experiment ${facts.activeExperimentId}`);
  return ready("no_active_experiment", "start a retrieval experiment (POST /api/retrieval_experiments) or defer this step");
}
