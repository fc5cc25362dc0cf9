import type { LlmUsage } from "@als/ai";
import { type Extractor, type InteractionRecord, type RankedQuery, type RequestRecord, type Scope, type Sql, VectorParam } from "@als/db";
import type { Collection } from "@als/vector";
import type { z } from "zod";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { withCommonLexemes } from "../search/common-lexemes.ts";

/** A learning the user already has, as extraction and deduplication see it. */
export interface KnownLearning {
  id: string;
  text: string;
}

/** What deduplication decided for the candidates of one window. */
export interface LearningPlan<C> {
  /** New learnings to insert, each with the vector of its text. */
  inserts: { candidate: C; embedding: number[] }[];
  /** Existing learnings whose text is replaced by a merge of theirs and a candidate's. */
  merges: { id: string; text: string; embedding: number[] }[];
}

/** What the commit of a window writes on top of the plan: where the learnings came from. */
export interface WindowOrigin {
  userId: string;
  /** The request of the window's newest interaction: the learnings are attributed to it. */
  request: RequestRecord;
  now: number;
  /** The status new learnings get; unset: CURRENT. */
  status?: Generation["status"];
}

/**
 * The learnings of a user that a window is compared with and adds to. Learning and manual
 * generation extend the CURRENT ones; a rerun builds a PENDING generation beside them, compared only
 * with itself, which an upgrade later makes current. A playbook generation may belong to one agent
 * version.
 */
export interface Generation {
  status: "CURRENT" | "PENDING";
  agentVersion?: string;
}
export const CURRENT_GENERATION: Generation = { status: "CURRENT" };

/**
 * One kind of extraction (profiles or user playbooks): how its prompt is filled, what the LLM must
 * answer, how candidates are compared with what the user already has, and how a window's outcome is
 * written. The learning step runs every extractor the same way.
 */
export interface ExtractorSpec<C, S extends z.ZodType = z.ZodType> {
  extractor: Extractor;
  /** The LLM stage name recorded with its usage. */
  stage: string;
  prompt: string;
  schemaName: string;
  schema: S;
  /** The prompt's variables besides the transcript and the known learnings. */
  promptVariables(config: ProjectConfig): Record<string, string>;
  candidatesOf(reply: z.output<S>): C[];
  /** The text a candidate is embedded, compared and deduplicated by. */
  textOf(candidate: C): string;
  /** The user's learnings of this kind in the generation (shown to the LLM so it does not restate them); unset: CURRENT. */
  known(deps: CoreDeps, scope: Scope, userId: string, generation?: Generation): Promise<KnownLearning[]>;
  /** The user's learnings in the generation most like a candidate (hybrid search), with their vector similarity. */
  similar(
    deps: CoreDeps,
    scope: Scope,
    search: { userId: string; text: string; vector: number[]; topK: number },
    generation?: Generation,
  ): Promise<(KnownLearning & { similarity: number | null })[]>;
  dedupSettings(config: ProjectConfig): { search_threshold: number | null; search_top_k: number };
  /** Whether a candidate that adds detail to a known learning rewrites its text; otherwise it is dropped. */
  mergesText: boolean;
  /** Writes the plan inside the caller's transaction (for learning, the one that advances the cursor); returns how many learnings it created. */
  commit(tx: Sql, deps: CoreDeps, scope: Scope, plan: LearningPlan<C>, origin: WindowOrigin): Promise<number>;
  /** Deletes the user's learnings of a generation (a rerun replaces the one an earlier rerun left unpromoted). */
  deleteGeneration(sql: Sql, scope: Scope, userId: string, generation: Generation): Promise<void>;
}

/** The hybrid search of `similar`: a candidate's text and vector against the user's learnings in `table`. */
export function similarityQuery(
  deps: Pick<CoreDeps, "db" | "services" | "embedder" | "now">,
  table: Collection,
  search: { text: string; vector: number[]; topK: number },
): Promise<RankedQuery> {
  const { embedder } = deps;
  return withCommonLexemes(deps, table, {
    mode: "hybrid",
    queryVector: new VectorParam(search.vector),
    queryText: search.text,
    embeddingModel: embedder.modelId,
    similarityFloor: embedder.defaultThreshold,
    topK: search.topK,
  });
}

export interface WindowResult {
  created: number;
  usage: (LlmUsage & { stage: string })[];
}

export type WindowInput = readonly InteractionRecord[];
