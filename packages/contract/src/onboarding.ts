import { z } from "zod";
import { AgentSuccessEvaluationResult } from "./evaluation.ts";
import { LEARNING_STATUSES } from "./interactions.ts";

/** The walkthrough the runs follow; a run keeps the version it was started under. */
export const WALKTHROUGH_VERSION = 1;

/** The source an example conversation is published with (contract: use_published_sample). */
export const ONBOARDING_SOURCE = "service-onboarding";

const ProjectPath = z.object({ project_id: z.string().min(1).max(255) });

export const OnboardingProjectInput = ProjectPath.strict();

export const StartOnboardingRequest = ProjectPath.extend({
  fresh: z.boolean().default(false).describe("false: initialize the example idempotently; true: a new run (earlier example records are kept)"),
}).strict();

export const OnboardingConversationQuery = ProjectPath.extend({
  run_id: z.string().min(1).max(255),
  request_id: z.string().min(1).max(255),
}).strict();

export const ONBOARDING_ACTIONS = [
  "dismiss",
  "use_imported_conversation",
  "use_published_sample",
  "view_learning",
  "view_evaluation",
  "defer_experiment",
  "review_experiment",
] as const;

export const UpdateOnboardingRequest = ProjectPath.extend({
  run_id: z.string().min(1).max(255),
  action: z.enum(ONBOARDING_ACTIONS).describe("What the member did (the former action resume is refused with 422)"),
  evidence_id: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      "use_imported_conversation: a committed request of this project; view_learning: profile:<id> or user_playbook:<id>; view_evaluation: the evaluation id; review_experiment: the active experiment's id",
    ),
}).strict();

export const ONBOARDING_STEP_IDS = [
  "create_api_key",
  "publish_conversation",
  "extract_learnings",
  "view_learning",
  "retrieve_learning",
  "grade_session",
  "view_evaluation",
  "set_up_experiment",
] as const;
export type OnboardingStepId = (typeof ONBOARDING_STEP_IDS)[number];

export const OnboardingStep = z.object({
  id: z.enum(ONBOARDING_STEP_IDS),
  complete: z.boolean(),
  state: z
    .enum(["complete", "ready", "waiting", "blocked"])
    .describe("ready: the member can act; waiting: the service is working; blocked: an earlier step is not done"),
  reason_code: z.string().nullable().describe("Why the step is in its state (e.g. experiment_deferred, learning_pending, needs_api_key)"),
  reason: z.string().nullable(),
});
export type OnboardingStep = z.infer<typeof OnboardingStep>;

/** When each milestone was first verified (Unix seconds), null until then. */
export const OnboardingMilestones = z.object({
  api_key_created: z.number().int().nullable(),
  conversation_published: z.number().int().nullable(),
  learnings_extracted: z.number().int().nullable(),
  learning_viewed: z.number().int().nullable(),
  learning_retrieved: z.number().int().nullable(),
  session_graded: z.number().int().nullable(),
  evaluation_viewed: z.number().int().nullable(),
  experiment_reviewed: z.number().int().nullable(),
  experiment_deferred: z.number().int().nullable(),
});
export type OnboardingMilestones = z.infer<typeof OnboardingMilestones>;

export const ImportedConversation = z.object({
  request_id: z.string(),
  user_id: z.string(),
  session_id: z.string(),
  source: z.string(),
  created_at: z.number().int(),
});

export const OnboardingRun = z.object({
  run_id: z.string(),
  walkthrough_version: z.number().int(),
  user_id: z.string().describe("The example's user: example-<run_id>"),
  session_id: z.string().describe("The example's session: example-learn-<run_id>"),
  source: z.string().describe("The source the example is published with (service-onboarding)"),
  agent_version: z.string(),
  conversation: z.enum(["published_sample", "imported"]).describe("Which conversation the walkthrough follows"),
  publish_request_ids: z.array(z.string()).describe("Committed requests of the followed conversation, oldest first"),
  milestones: OnboardingMilestones,
  reason_codes: z.array(z.string()).describe("The reason codes of the steps not complete"),
  dismissed: z.boolean(),
  dismissed_at: z.number().int().nullable(),
  viewed_evidence_ids: z.array(z.string()),
  retrieved_learning_ids: z.array(z.string()).describe("profile:<id> / user_playbook:<id> served to qualifying API-key searches"),
  selected_experiment_id: z.string().nullable(),
  imported_conversations: z.array(ImportedConversation).max(1).describe("At most the selected imported conversation"),
  revision: z.number().int().describe("Advances with every saved change"),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type OnboardingRun = z.infer<typeof OnboardingRun>;

export const OnboardingLearning = z.object({
  id: z.string().describe("profile:<id> or user_playbook:<id>"),
  kind: z.enum(["profile", "user_playbook"]),
  content: z.string(),
  created_at: z.number().int(),
});

export const OnboardingPrerequisites = z.object({
  llm_configured: z.boolean().describe("Learning needs an LLM provider"),
  api_key_exists: z.boolean().describe("A live API key is bound to this project"),
});

export const OnboardingStatus = z.object({
  project_id: z.string(),
  eligible: z.boolean().describe("Only the organisation's default project has a walkthrough"),
  run: OnboardingRun.nullable(),
  steps: z.array(OnboardingStep),
  project_empty: z.boolean().describe("No request was ever committed in the project"),
  show_full: z.boolean().describe("Show the whole checklist (not dismissed and not yet complete)"),
  core_complete: z.boolean().describe("Publish, extraction and a learning retrieved with an API key are verified"),
  learning_status: z.enum(LEARNING_STATUSES).nullable().describe("Learning from the followed conversation's latest request"),
  learnings: z.array(OnboardingLearning).describe("Learnings of the followed conversation's user"),
  evaluation_id: z.string().nullable(),
  evaluation: AgentSuccessEvaluationResult.nullable().describe("The verified evaluation of the followed session, without embeddings"),
  evaluation_enabled: z.boolean().describe("agent_success_config samples sessions (sampling_rate > 0)"),
  active_experiment_id: z.string().nullable(),
  prerequisites: OnboardingPrerequisites,
});
export type OnboardingStatus = z.infer<typeof OnboardingStatus>;

export const ConversationPreview = z.object({
  messages: z
    .array(
      z.object({
        interaction_id: z.number().int(),
        role: z.string(),
        content: z.string().max(1000),
        truncated: z.boolean(),
      }),
    )
    .max(3),
  has_more: z.literal(false),
});
