import { endpoints, PUBLISH_WAIT_MS } from "@als/contract";
import { countLearningsOfRequest, maskedStorageLabel, publishInteractions, waitForLearning } from "@als/core";
import { implement } from "../../implement.ts";

export default implement(endpoints.interactions.publish, {
  async handle({ deps, scope, authMode }, input) {
    const published = await publishInteractions(deps, scope, input);
    const requestId = published.request.request_id;
    const done = input.wait_for_response && (await waitForLearning(deps, scope, requestId, PUBLISH_WAIT_MS));
    const learned = done ? await countLearningsOfRequest(deps, scope, published.request) : { profiles: 0, user_playbooks: 0, profiles_merged: 0 };
    const storage = { storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps, authMode === "required") ?? deps.db.kind };
    return {
      success: true,
      message: `Published ${published.interactionIds.length} interaction(s)`,
      request_id: requestId,
      storage_routing: storage,
      ...storage,
      learning_status: done ? ("done" as const) : ("deferred" as const),
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
