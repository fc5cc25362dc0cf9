import { type Database, profiles, type Scope } from "@als/db";

const TOPICS = ["Keeps bees in the garden", "Collects vintage fountain pens", "Speaks fluent Japanese", "Is training for a triathlon"];

/** Profiles as a retired model left them: its model id and a vector that means nothing to the current model. */
export async function seedProfilesOfRetiredModel(db: Database, scope: Scope, count: number): Promise<void> {
  const meaningless = Array.from({ length: 384 }, (_, i) => (i === 7 ? 1 : 0));
  const all = Array.from({ length: count }, (_, i) => ({
    profile_id: `p-${String(i).padStart(5, "0")}`,
    user_id: `user-${i % 3}`,
    content: `${TOPICS[i % TOPICS.length]} (${i})`,
    status: "CURRENT" as const,
    source: "",
    profile_time_to_live: "infinity",
    expires_at: null,
    tags: [],
    custom_feature: null,
    extractor_name: null,
    generated_from_request_id: null,
    embedding: meaningless,
    embedding_model: "retired-model",
  }));
  // Bounded statements: each profile binds 15 parameters.
  for (let start = 0; start < all.length; start += 500) {
    await profiles.upsertProfiles(db, scope, all.slice(start, start + 500), Math.floor(Date.now() / 1000));
  }
}
