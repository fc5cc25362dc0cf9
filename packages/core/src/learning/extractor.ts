import type { LlmUsage } from "@als/ai";
import type { Extractor, InteractionRecord, RequestRecord, Scope, Sql } from "@als/db";
import type { z } from "zod";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";

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
}

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
  /** The user's current learnings of this kind (shown to the LLM so it does not restate them). */
  known(deps: CoreDeps, scope: Scope, userId: string): Promise<KnownLearning[]>;
  /** The user's current learnings most like a candidate (hybrid search), with their vector similarity. */
  similar(
    deps: CoreDeps,
    scope: Scope,
    search: { userId: string; text: string; vector: number[]; topK: number },
  ): Promise<(KnownLearning & { similarity: number | null })[]>;
  dedupSettings(config: ProjectConfig): { search_threshold: number; search_top_k: number };
  /** Whether a candidate that adds detail to a known learning rewrites its text; otherwise it is dropped. */
  mergesText: boolean;
  /** Writes the plan inside the transaction that advances the cursor; returns how many learnings it created. */
  commit(tx: Sql, deps: CoreDeps, scope: Scope, plan: LearningPlan<C>, origin: WindowOrigin): Promise<number>;
}

export interface WindowResult {
  created: number;
  usage: (LlmUsage & { stage: string })[];
}

export type WindowInput = readonly InteractionRecord[];
