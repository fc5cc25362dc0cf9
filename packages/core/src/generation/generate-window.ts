import { LlmOutputError, LlmStallError, LlmUnavailableError, type Llm } from "@als/ai";
import { AppError } from "@als/contract";
import { learning, requests, type InteractionRecord, type Scope } from "@als/db";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import type { ExtractorSpec, Generation } from "../learning/extractor.ts";
import { NO_PROVIDER_REASON } from "../learning/learning-step.ts";
import { planWindow } from "../learning/plan-window.ts";

/** A generation that passed its checks and is running; `done` settles with how many learnings it created. */
export interface StartedGeneration {
  done: Promise<number>;
}

/** What generation needs from the process: the core dependencies with an LLM provider. */
export type GenerationDeps = CoreDeps & { llm: Llm };

/** The LLM provider generation needs, or the error that says what to configure. */
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
 * LLM usage they cost. Unlike a learning step it moves no cursor: generation is asked for, so it
 * neither skips nor repeats what learning will do on its own.
 */
export async function generateWindow<C>(
  deps: GenerationDeps,
  scope: Scope,
  spec: ExtractorSpec<C>,
  config: ProjectConfig,
  { userId, window, generation }: GenerationWindow,
): Promise<number> {
  let planned;
  try {
    planned = await planWindow(deps, scope, spec, config, userId, window, generation);
  } catch (error) {
    throw await providerFailure(deps, scope, error);
  }
  const request = (await requests.findRequest(deps.db, scope, window.at(-1)!.request_id))!;
  const now = deps.now();
  return deps.db.transaction(async (tx) => {
    const created = await spec.commit(tx, deps, scope, planned.plan, { userId, request, now, status: generation.status });
    await learning.recordLlmUsage(tx, scope, planned.usage.map((u) => ({ ...u, userId, requestId: request.request_id })), now);
    return created;
  });
}

/** A provider failure as the caller should see it; an auth or billing refusal also records the learning stall, as learning does. */
async function providerFailure(deps: CoreDeps, scope: Scope, error: unknown): Promise<unknown> {
  if (error instanceof LlmStallError) {
    await learning.recordStall(deps.db, scope, { reason: error.kind, errorMessage: error.message }, deps.now());
    return new AppError("llm_unavailable", `learning is stalled: ${error.message}`);
  }
  if (error instanceof LlmUnavailableError || error instanceof LlmOutputError) return new AppError("llm_unavailable", `the LLM provider failed: ${error.message}`);
  return error;
}
