import { BulkDeleteResponse, NoInput } from "../common.ts";
import { defineResource } from "../endpoint.ts";
import {
  DeleteInteractionRequest,
  DeleteInteractionResponse,
  FinalizeSessionRequest,
  FinalizeSessionResponse,
  GetAllInteractionsQuery,
  GetInteractionsRequest,
  InteractionsResponse,
  LearningStatusQuery,
  LearningStatusResponse,
  PUBLISH_WAIT_MS,
  PublishInteractionRequest,
  PublishInteractionResponse,
  SearchInteractionsRequest,
} from "../interactions.ts";

export const interactionsEndpoints = defineResource("interactions", {
  publish: {
    method: "POST",
    path: "/api/publish_interaction",
    summary: "Publish a request's interactions for a user; with ?wait_for_response=true, wait (up to 240 s) for learning from them",
    input: PublishInteractionRequest,
    queryFields: ["wait_for_response"],
    // The wait itself is bounded at 240 s; the backstop only catches what goes wrong around it.
    timeoutMs: PUBLISH_WAIT_MS + 10_000,
    output: PublishInteractionResponse,
    errors: ["admission_timeout", "capacity_deadline_exceeded", "erasure_in_progress"],
    idempotencyKey: true,
    rateClass: "publish",
  },
  finalizeSession: {
    method: "POST",
    path: "/api/finalize_session",
    summary:
      "The completion hint: a user's session is finished, so learning from its last, short window is due now instead of after the session inactivity deadline (later publishes to the session are still learned)",
    input: FinalizeSessionRequest,
    output: FinalizeSessionResponse,
  },
  delete: {
    method: "DELETE",
    path: "/api/delete_interaction",
    summary: "Delete one interaction of a user (404 when the user has no such interaction); what learning took from it stays",
    input: DeleteInteractionRequest,
    output: DeleteInteractionResponse,
    errors: ["not_found"],
  },
  deleteAll: {
    method: "DELETE",
    path: "/api/delete_all_interactions",
    summary: "Delete every interaction of the project, with the requests that published them",
    input: NoInput,
    output: BulkDeleteResponse,
  },
  getAll: {
    method: "GET",
    path: "/api/get_all_interactions",
    summary: "The most recent interactions of every user, newest first",
    input: GetAllInteractionsQuery,
    output: InteractionsResponse,
  },
  search: {
    method: "POST",
    path: "/api/search_interactions",
    summary: "Search a user's interactions (or their most recent most_recent_k) by meaning, words or both",
    input: SearchInteractionsRequest,
    output: InteractionsResponse,
    errors: ["embedding_unavailable", "overloaded"],
    rateClass: "search",
  },
  get: {
    method: "POST",
    path: "/api/get_interactions",
    summary: "A user's most recent interactions, newest first",
    input: GetInteractionsRequest,
    output: InteractionsResponse,
  },
  learningStatus: {
    method: "GET",
    path: "/api/learning_status",
    summary: "Where learning from a published request stands (pending, processing, done, failed, not_tracked) and why",
    input: LearningStatusQuery,
    output: LearningStatusResponse,
  },
});
