import { NoInput } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import {
  LearningBacklogResponse,
  ListHeldWindowsRequest,
  ListHeldWindowsResponse,
  LlmCostsRequest,
  LlmCostsResponse,
  MarkNotifiedResponse,
  RecoverHeldWindowRequest,
  RecoverHeldWindowResponse,
  StallStateResponse,
} from "../learning.ts";

export const learningEndpoints = defineResource("learning", {
  markStallNotified: {
    method: "POST",
    path: "/stall_state/notified",
    summary: "Record that the operator was told about the learning stall (idempotent)",
    input: NoInput,
    output: MarkNotifiedResponse,
  },
  stallState: {
    method: "GET",
    path: "/stall_state",
    summary: "Whether background extraction is paused by a provider auth or billing error",
    input: NoInput,
    output: StallStateResponse,
  },
  listHeldWindows: {
    method: "POST",
    path: "/api/learning/held_windows",
    summary: "Learning windows held because they do not fit the input budget even reduced (learning_status reason input_budget_exceeded)",
    input: ListHeldWindowsRequest,
    output: ListHeldWindowsResponse,
    credentials: ["api_key", "login_session"],
  },
  recoverHeldWindow: {
    method: "POST",
    path: "/api/learning/recover_held_window",
    summary: "Recover a held window: skip it, or retry it with a larger budget; recorded (404 when the user's extractor holds none)",
    input: RecoverHeldWindowRequest,
    output: RecoverHeldWindowResponse,
    credentials: ["api_key", "login_session"],
  },
  costs: {
    method: "POST",
    path: "/api/learning/costs",
    summary: "Tokens and cost of the project's LLM calls per UTC day, stage and model (at most a year; 422 for an inverted or longer range)",
    input: LlmCostsRequest,
    output: LlmCostsResponse,
    credentials: ["api_key", "login_session"],
  },
  backlog: {
    method: "GET",
    path: "/api/learning/backlog",
    summary:
      "Whether learning keeps up in each project of the member's organisation (the oldest request not yet learned from, the users waiting) and its durable work by kind and status, with the Temporal UI's address in full mode",
    input: NoInput,
    output: LearningBacklogResponse,
    credentials: ["login_session"],
  },
});
