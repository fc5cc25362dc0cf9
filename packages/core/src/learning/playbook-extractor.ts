import { userPlaybooks } from "@als/db";
import { z } from "zod";
import { embeddingTextOf } from "../playbooks/playbook-text.ts";
import { DEFAULT_PLAYBOOK_DEFINITION } from "./default-definitions.ts";
import { CURRENT_GENERATION, type ExtractorSpec, similarityQuery } from "./extractor.ts";

const KNOWN_SHOWN = 100;

const PlaybookExtraction = z.object({
  playbooks: z.array(z.object({ trigger: z.string(), content: z.string().min(1), rationale: z.string(), tags: z.array(z.string()) })),
});
export type PlaybookCandidate = z.infer<typeof PlaybookExtraction>["playbooks"][number];

/** User playbooks: guidance for the agent (trigger, content, rationale) learned from one user's conversations. */
export const playbookExtractor: ExtractorSpec<PlaybookCandidate, typeof PlaybookExtraction> = {
  extractor: "playbook",
  stage: "playbook_extraction",
  prompt: "playbook-extraction",
  schemaName: "playbook_extraction",
  schema: PlaybookExtraction,
  promptVariables: (config) => ({
    definition: config.user_playbook_extractor_config.extraction_definition_prompt ?? DEFAULT_PLAYBOOK_DEFINITION,
    context: config.user_playbook_extractor_config.context_prompt ?? "",
  }),
  candidatesOf: (reply) => reply.playbooks,
  textOf: (candidate) => embeddingTextOf(candidate),
  dedupSettings: (config) => config.user_playbook_extractor_config.deduplication_config,
  // A playbook restating one the user has is dropped: rewriting a playbook's content would change
  // guidance that may already be linked into an agent playbook.
  mergesText: false,

  async known(deps, scope, userId, generation = CURRENT_GENERATION) {
    const current = await userPlaybooks.listUserPlaybooks(
      deps.db,
      scope,
      { userId, statuses: [generation.status], agentVersion: generation.agentVersion },
      KNOWN_SHOWN,
    );
    return current.map((p) => ({ id: String(p.user_playbook_id), text: embeddingTextOf(p) }));
  },

  async similar(deps, scope, search, generation = CURRENT_GENERATION) {
    const found = await userPlaybooks.searchUserPlaybooks(
      deps.db,
      scope,
      { userId: search.userId, statuses: [generation.status], agentVersion: generation.agentVersion },
      await similarityQuery(deps, "user_playbooks", search),
    );
    return found.map((p) => ({ id: String(p.user_playbook_id), text: embeddingTextOf(p), similarity: p.similarity }));
  },

  async commit(tx, deps, scope, plan, origin) {
    const { userId, request, now } = origin;
    if (plan.inserts.length > 0) {
      await userPlaybooks.insertUserPlaybooks(
        tx,
        scope,
        plan.inserts.map(({ candidate, embedding }) => ({
          user_id: userId,
          request_id: request.request_id,
          agent_version: request.agent_version,
          playbook_name: "",
          content: candidate.content,
          trigger: candidate.trigger,
          rationale: candidate.rationale,
          tags: candidate.tags,
          status: origin.status ?? "CURRENT",
          source: request.source,
          embedding,
          embedding_model: deps.embedder.modelId,
        })),
        now,
      );
    }
    return plan.inserts.length;
  },

  async deleteGeneration(sql, scope, userId, generation) {
    await userPlaybooks.deleteUserPlaybooks(sql, scope, { userId, statuses: [generation.status], agentVersion: generation.agentVersion });
  },
};
