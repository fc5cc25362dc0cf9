import type { NewProfile } from "@als/contract";
import { type ProfileRecord, profileChangeLog, profiles, type Scope, type Sql } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import { groupBy } from "../group-by.ts";
import { expiryOf } from "./profile-view.ts";

/**
 * Adds profiles (or replaces those whose profile_id exists), embedding their content first so the
 * write transaction holds no lock while the model runs. Each user's additions land in the change log
 * in the same transaction, and so does what `withinCommit` writes.
 */
export async function addUserProfiles(
  deps: CoreDeps,
  scope: Scope,
  input: NewProfile[],
  withinCommit?: (tx: Sql, stored: ProfileRecord[]) => Promise<void>,
): Promise<ProfileRecord[]> {
  const embeddings = await deps.embedder.embedDocuments(input.map((p) => p.content));
  const now = deps.now();
  const rows = input.map((p, index) => {
    const timeToLive = p.profile_time_to_live ?? "infinity";
    return {
      profile_id: p.profile_id ?? crypto.randomUUID(),
      user_id: p.user_id,
      content: p.content,
      status: p.status ?? "CURRENT",
      source: p.source ?? "",
      profile_time_to_live: timeToLive,
      expires_at: expiryOf(timeToLive, now),
      tags: p.tags ?? [],
      custom_feature: p.custom_feature ?? null,
      extractor_name: p.extractor_name ?? null,
      generated_from_request_id: p.generated_from_request_id ?? null,
      embedding: embeddings[index]!,
      embedding_model: deps.embedder.modelId,
    };
  });
  return deps.db.transaction(async (tx) => {
    const stored = await profiles.upsertProfiles(tx, scope, rows, now);
    const byUser = groupBy(stored, (p) => p.user_id);
    await profileChangeLog.recordProfileChanges(
      tx,
      scope,
      [...byUser].map(([userId, added]) => ({ user_id: userId, request_id: null, added_profiles: added, removed_profiles: [] })),
      now,
    );
    await withinCommit?.(tx, stored);
    return stored;
  });
}
