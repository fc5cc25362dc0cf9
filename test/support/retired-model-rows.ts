import { agentPlaybooks, type Database, profiles, type Scope, userPlaybooks } from "@als/db";

const TOPICS = ["Keeps bees in the garden", "Collects vintage fountain pens", "Speaks fluent Japanese", "Is training for a triathlon"];

/** A vector that means nothing to the current model, as a retired model left it. */
const meaningless = Array.from({ length: 384 }, (_, i) => (i === 7 ? 1 : 0));

/** Profiles as a retired model left them: its model id and a vector that means nothing to the current model. */
export async function seedProfilesOfRetiredModel(db: Database, scope: Scope, count: number): Promise<void> {
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

const PLAYBOOKS: [trigger: string, content: string][] = [
  ["the user asks for a refund", "Apologise, then link the refund form"],
  ["the user reports a bug", "Ask for the steps that reproduce it"],
  ["the user writes in Spanish", "Answer in Spanish"],
];

/**
 * `count` user playbooks (each user of user-0 to user-2 gets every topic) and `count` agent
 * playbooks as a retired model left them.
 */
export async function seedPlaybooksOfRetiredModel(db: Database, scope: Scope, count: number): Promise<void> {
  const common = (i: number) => {
    const [trigger, content] = PLAYBOOKS[i % PLAYBOOKS.length]!;
    return { agent_version: "v1", playbook_name: "support", trigger, content: `${content} (${i})`, rationale: "", tags: [], status: "CURRENT" as const };
  };
  const now = Math.floor(Date.now() / 1000);
  const retired = { embedding: meaningless, embedding_model: "retired-model" };
  await userPlaybooks.insertUserPlaybooks(
    db,
    scope,
    Array.from({ length: count }, (_, i) => ({
      ...common(i),
      ...retired,
      user_id: `user-${Math.floor(i / PLAYBOOKS.length) % 3}`,
      request_id: null,
      source: "",
    })),
    now,
  );
  await agentPlaybooks.insertAgentPlaybooks(
    db,
    scope,
    Array.from({ length: count }, (_, i) => ({
      ...common(i),
      ...retired,
      playbook_status: "APPROVED" as const,
      playbook_metadata: "{}",
      source_user_playbook_ids: [],
    })),
    now,
  );
}
