import { ProfileTimeToLive } from "@als/contract";
import { profileChangeLog, profiles } from "@als/db";
import { z } from "zod";
import { expiryOf } from "../profiles/profile-view.ts";
import { DEFAULT_PROFILE_DEFINITION } from "./default-definitions.ts";
import { CURRENT_GENERATION, type ExtractorSpec, similarityQuery } from "./extractor.ts";

const KNOWN_SHOWN = 100;

const ProfileExtraction = z.object({
  profiles: z.array(z.object({ content: z.string().min(1), time_to_live: ProfileTimeToLive, tags: z.array(z.string()) })),
});
export type ProfileCandidate = z.infer<typeof ProfileExtraction>["profiles"][number];

/** Profiles: per-user facts with a time to live, extracted from a window and merged into what the user has. */
export const profileExtractor: ExtractorSpec<ProfileCandidate, typeof ProfileExtraction> = {
  extractor: "profile",
  stage: "profile_extraction",
  prompt: "profile-extraction",
  schemaName: "profile_extraction",
  schema: ProfileExtraction,
  promptVariables: (config) => ({
    definition: config.profile_extractor_config.extraction_definition_prompt ?? DEFAULT_PROFILE_DEFINITION,
    context: config.profile_extractor_config.context_prompt ?? "",
  }),
  candidatesOf: (reply) => reply.profiles,
  textOf: (candidate) => candidate.content,
  dedupSettings: (config) => config.deduplication_config,
  mergesText: true,

  async known(deps, scope, userId, generation = CURRENT_GENERATION) {
    const current = await profiles.listProfiles(deps.db, scope, { userId, statuses: [generation.status], liveAt: deps.now() }, KNOWN_SHOWN);
    return current.map((p) => ({ id: p.profile_id, text: p.content }));
  },

  async similar(deps, scope, search, generation = CURRENT_GENERATION) {
    const found = await profiles.searchProfiles(
      deps.db,
      scope,
      { userId: search.userId, statuses: [generation.status], liveAt: deps.now() },
      await similarityQuery(deps, "profiles", search),
    );
    return found.map((p) => ({ id: p.profile_id, text: p.content, similarity: p.similarity }));
  },

  async commit(tx, deps, scope, plan, origin) {
    const { userId, request, now } = origin;
    const inserted = plan.inserts.map(({ candidate, embedding }) => ({
      profile_id: crypto.randomUUID(),
      user_id: userId,
      content: candidate.content,
      status: origin.status ?? "CURRENT",
      source: request.source,
      profile_time_to_live: candidate.time_to_live,
      expires_at: expiryOf(candidate.time_to_live, now),
      tags: candidate.tags,
      custom_feature: null,
      extractor_name: null,
      generated_from_request_id: request.request_id,
      embedding,
      embedding_model: deps.embedder.modelId,
    }));
    const before = await profiles.findProfilesByIds(
      tx,
      scope,
      plan.merges.map((m) => m.id),
    );
    const merged = before.map((old) => {
      const merge = plan.merges.find((m) => m.id === old.profile_id)!;
      return { ...old, content: merge.text, embedding: merge.embedding, embedding_model: deps.embedder.modelId };
    });
    const rows = [...inserted, ...merged];
    if (rows.length === 0) return 0;
    const stored = await profiles.upsertProfiles(tx, scope, rows, now);
    await profileChangeLog.recordProfileChanges(
      tx,
      scope,
      [{ user_id: userId, request_id: request.request_id, added_profiles: stored, removed_profiles: before }],
      now,
    );
    return inserted.length;
  },

  async deleteGeneration(sql, scope, userId, generation) {
    // Not logged as a change: the profiles of a generation not yet upgraded were never the user's current ones.
    await profiles.deleteProfiles(sql, scope, { userId, statuses: [generation.status] });
  },
};
