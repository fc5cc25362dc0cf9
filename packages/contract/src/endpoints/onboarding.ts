import { defineResource, type EndpointSpec } from "../endpoint.ts";
import {
  ConversationPreview,
  OnboardingConversationQuery,
  OnboardingProjectInput,
  OnboardingStatus,
  StartOnboardingRequest,
  UpdateOnboardingRequest,
} from "../onboarding.ts";

// Dashboard onboarding (contract: Authentication 7): a member's login session of the organisation
// that owns the project; API keys are refused, another organisation's project is 404. The project is
// the URL's; X-Service-Project, when sent, must repeat it.
const MEMBER_OF_PROJECT = {
  credentials: ["login_session"],
  projectPathParam: "project_id",
  projectHeader: "optional",
} as const satisfies Partial<EndpointSpec>;

export const onboardingEndpoints = defineResource("onboarding", {
  status: {
    method: "GET",
    path: "/api/projects/:project_id/onboarding",
    summary: "The project's onboarding status and its linked evidence (not eligible: every project but the default one)",
    input: OnboardingProjectInput,
    output: OnboardingStatus,
    ...MEMBER_OF_PROJECT,
  },
  initialize: {
    method: "POST",
    path: "/api/projects/:project_id/onboarding/initialize",
    summary: "Initialize the walkthrough's run and reconcile its milestones from persisted evidence, in one answer",
    input: OnboardingProjectInput,
    output: OnboardingStatus,
    ...MEMBER_OF_PROJECT,
    errors: ["conflict"],
  },
  start: {
    method: "POST",
    path: "/api/projects/:project_id/onboarding/start",
    summary: "fresh false: initialize the example idempotently; fresh true: a new run, earlier example records kept (404 on a project that is not eligible)",
    input: StartOnboardingRequest,
    output: OnboardingStatus,
    ...MEMBER_OF_PROJECT,
    errors: ["conflict"],
  },
  refresh: {
    method: "POST",
    path: "/api/projects/:project_id/onboarding/refresh",
    summary: "Reconcile the run's milestones from persisted evidence and save them",
    input: OnboardingProjectInput,
    output: OnboardingStatus,
    ...MEMBER_OF_PROJECT,
    errors: ["conflict"],
  },
  conversation: {
    method: "GET",
    path: "/api/projects/:project_id/onboarding/conversation",
    summary: "At most three messages of a request of the run's conversation, each cut to 1,000 characters; changes nothing, fetches nothing from providers",
    input: OnboardingConversationQuery,
    output: ConversationPreview,
    ...MEMBER_OF_PROJECT,
    errors: ["bad_request", "conflict"],
  },
  update: {
    method: "PATCH",
    path: "/api/projects/:project_id/onboarding",
    summary:
      "Record what a member did (dismiss, use_imported_conversation, use_published_sample, view_learning, view_evaluation, defer_experiment, review_experiment); shared with teammates",
    input: UpdateOnboardingRequest,
    output: OnboardingStatus,
    ...MEMBER_OF_PROJECT,
    errors: ["bad_request", "conflict"],
  },
});
