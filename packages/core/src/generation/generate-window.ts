import { type Llm, LlmStallError } from "@als/ai";
import { AppError } from "@als/contract";
import { type InteractionRecord, learning, requests, type Scope, type Sql } from "@als/db";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import type { ExtractorSpec, Generation } from "../learning/extractor.ts";
import { NO_PROVIDER_REASON } from "../learning/learning-step.ts";
import { planWindow } from "../learning/plan-window.ts";

/** What generation needs from the process: the core dependencies with an LLM provider. */
export type GenerationDeps = CoreDeps & { llm: Llm };

/** The LLM provider a request for generation needs, or the error that says what to configure. */
export function requireLlm(deps: CoreDeps): Llm {
  if (!deps.llm) throw new AppError("llm_unavailable", NO_PROVIDER_REASON);
  return deps.llm;
}

export interface GenerationWindow {
  userId: string;
  window: readonly InteractionRecord[];
  generation: Generation;
}

/**
 * Extracts one window into a generation of the user's learnings and commits them together with the
 * LLM usage they cost and `alsoCommit` (the run's progress: see RunCursor), which may refuse the
 * commit. Unlike a learning step it moves no learning cursor: generation is asked for, so it
 * neither skips nor repeats what learning will do on its own.
 */
export async function generateWindow<C>(
  deps: GenerationDeps,
  scope: Scope,
  spec: ExtractorSpec<C>,
  config: ProjectConfig,
  { userId, window, generation }: GenerationWindow,
  alsoCommit: (tx: Sql, created: number) => Promise<void>,
): Promise<number> {
  const planned = await planWindow(deps, scope, spec, config, userId, window, { generation }).catch(async (error: unknown) => {
    // A refused key or exhausted billing stalls learning too, as a learning step's would.
    if (error instanceof LlmStallError) await learning.recordStall(deps.db, scope, { reason: error.kind, errorMessage: error.message }, deps.now());
    throw error;
  });
  // A rerun never offers ask_human (no humanQuestions option), so its model cannot have asked.
  if ("questions" in planned) throw new Error("a generation run's window asked a person");
  const request = (await requests.findRequest(deps.db, scope, window.at(-1)!.request_id))!;
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const created = await spec.commit(tx, deps, scope, planned.plan, { userId, request, now, status: generation.status });
    await learning.recordLlmUsage(
      tx,
      scope,
      planned.usage.map((u) => ({ ...u, userId, requestId: request.request_id })),
      now,
    );
    await alsoCommit(tx, created);
    return created;
  });
}
