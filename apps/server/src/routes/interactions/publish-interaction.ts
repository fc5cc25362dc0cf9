import { PublishInteractionRequest, PublishInteractionResponse } from "@als/contract";
import { countLearningsOfRequest, maskedStorageLabel, publishInteractions, waitForLearning } from "@als/core";
import { defineOperation } from "../../operation.ts";

/** The contract's longest wait for learning when the caller asks to wait (admission included). */
export const PUBLISH_WAIT_MS = 240_000;

export const publishInteraction = defineOperation({
  procedure: "interactions.publish",
  method: "POST",
  path: "/api/publish_interaction",
  summary: "Publish a request's interactions for a user; with ?wait_for_response=true, wait (up to 240 s) for learning from them",
  input: PublishInteractionRequest,
  queryFields: ["wait_for_response"],
  // The wait itself is bounded at 240 s; the backstop only catches what goes wrong around it.
  backstopMs: PUBLISH_WAIT_MS + 10_000,
  output: PublishInteractionResponse,
  async handle({ deps, scope }, input) {
    const published = await publishInteractions(deps, scope, input);
    const requestId = published.request.request_id;
    const done = input.wait_for_response && (await waitForLearning(deps, scope, requestId, PUBLISH_WAIT_MS));
    const learned = done ? await countLearningsOfRequest(deps, scope, requestId) : { profiles: 0, user_playbooks: 0 };
    return {
      success: true,
      message: `Published ${published.interactionIds.length} interaction(s)`,
      request_id: requestId,
      storage_routing: { storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps) ?? deps.db.kind },
      learning_status: done ? ("done" as const) : ("deferred" as const),
      interactions_created: published.interactionIds.length,
      profiles_created: learned.profiles,
      user_playbooks_created: learned.user_playbooks,
      warnings: published.warnings,
    };
  },
});
