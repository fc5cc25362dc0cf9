import { endpoints, PUBLISH_WAIT_MS } from "@als/contract";
import { maskedStorageLabel, type PublishLearning, publishInteractions, waitForPublishLearning } from "@als/core";
import { implement } from "../../implement.ts";

const NOT_WAITED: PublishLearning = { status: "deferred", learned: { profiles: 0, user_playbooks: 0, profiles_merged: 0 } };

export default implement(endpoints.interactions.publish, {
  async handle({ deps, scope, authMode }, input) {
    // The contract's 240 s include admission.
    const started = performance.now();
    const published = await publishInteractions(deps, scope, input);
    const requestId = published.request.request_id;
    // From here on the request is stored: nothing may answer it as failed (see waitForPublishLearning).
    const learning = input.wait_for_response
      ? await waitForPublishLearning(deps, scope, published.request, PUBLISH_WAIT_MS - (performance.now() - started))
      : NOT_WAITED;
    const { learned } = learning;
    const storage = { storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps, authMode === "required") ?? deps.db.kind };
    const stored = `Published ${published.interactionIds.length} interaction(s)`;
    return {
      success: true,
      message: learning.unknown
        ? `${stored}; whether learning from them is done is not known yet (${learning.unknown}): look it up with GET /api/learning_status?request_id=${requestId}`
        : stored,
      request_id: requestId,
      storage_routing: storage,
      ...storage,
      learning_status: learning.status,
      interactions_created: published.interactionIds.length,
      profiles_created: learned.profiles,
      user_playbooks_created: learned.user_playbooks,
      profiles_added: learned.profiles,
      profiles_updated: learned.profiles_merged,
      playbooks_added: learned.user_playbooks,
      playbooks_updated: 0,
      warnings: published.warnings,
    };
  },
});
