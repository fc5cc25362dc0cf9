import { type Llm, type LlmUsage, renderPrompt } from "@als/ai";
import type { InteractionRecord, Scope } from "@als/db";
import { z } from "zod";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { type AskedQuestion, AskHuman, offeringAskHuman, resumingWithAnswers, type SettledQuestion } from "../human-questions/ask-human.ts";
import { CURRENT_GENERATION, type ExtractorSpec, type Generation, type KnownLearning, type LearningPlan } from "./extractor.ts";
import { fitWindow, inputBudgetOf } from "./input-budget.ts";

const Deduplication = z.object({
  decisions: z.array(z.object({ candidate: z.number().int(), duplicate_of: z.string().nullable(), merged_content: z.string().nullable() })),
});

export interface PlannedWindow<C> {
  plan: LearningPlan<C>;
  usage: (LlmUsage & { stage: string })[];
}

/** The model asked a person instead (the ask_human tool): the run's state to persist, and its questions. */
export interface AskingWindow {
  questions: AskedQuestion[];
  /** The extraction call as sent and answered: what a resumed run shows the model again. */
  messages: { prompt: { system: string; user: string }; reply: unknown };
  usage: (LlmUsage & { stage: string })[];
}

interface WindowOptions {
  generation?: Generation;
  budgetTokens?: number;
}

/** How a window may involve a person: `offer` the ask_human tool, or `resume` a run that asked with what became of its questions. */
export type HumanQuestions = { offer: true } | { resume: { earlier: unknown; questions: SettledQuestion[] } };

/** Lower case, one space between words: the form two restatements of the same fact are compared in. */
const normalized = (text: string) => text.toLowerCase().replace(/\s+/g, " ").trim();

/**
 * Everything a window needs from the LLM and the embedder, done before any transaction: extraction
 * (its prompt fitted into the input budget, see fitWindow; `budgetTokens` overrides the project's),
 * then deduplication against what the user already has (in `generation`: the CURRENT learnings
 * unless a rerun builds a PENDING generation). A candidate whose text the user already has is
 * dropped outright; candidates with close matches (hybrid search, vector similarity at or
 * above the configured threshold) go to one LLM call that says which restate, and which add detail
 * to be merged. So republishing the same facts does not grow the store.
 */
export async function planWindow<C>(
  deps: CoreDeps & { llm: Llm },
  scope: Scope,
  spec: ExtractorSpec<C>,
  config: ProjectConfig,
  userId: string,
  window: readonly InteractionRecord[],
  options: WindowOptions & { humanQuestions?: HumanQuestions | undefined } = {},
): Promise<PlannedWindow<C> | AskingWindow> {
  const generation = options.generation ?? CURRENT_GENERATION;
  const usage: PlannedWindow<C>["usage"] = [];
  const known = await spec.known(deps, scope, userId, generation);
  const variables = { ...spec.promptVariables(config), existing: listed(known) };
  const budget = inputBudgetOf(deps.llm, options.budgetTokens ?? config.learning_input_budget_tokens);
  const human = options.humanQuestions;
  const render = (transcript: string) => {
    const prompt = renderPrompt(spec.prompt, { ...variables, transcript });
    if (!human) return prompt;
    return "offer" in human ? offeringAskHuman(prompt) : resumingWithAnswers(prompt, human.resume.earlier, human.resume.questions);
  };
  const { prompt } = fitWindow(deps.llm.inputTokens, budget, render, window);
  // Offered, the tool is a field of the reply: the model fills it with its questions, or leaves it empty.
  const schema = human && "offer" in human ? (spec.schema as unknown as z.ZodObject).extend({ ask_human: AskHuman }) : spec.schema;
  const extracted = await deps.llm.generateObject({ system: prompt.system, user: prompt.user, schema, schemaName: spec.schemaName });
  usage.push({ ...extracted.usage, stage: spec.stage });
  const asked: AskedQuestion[] = (extracted.value as { ask_human?: AskedQuestion[] }).ask_human ?? [];
  if (asked.length > 0) return { questions: asked, messages: { prompt: { system: prompt.system, user: prompt.user }, reply: extracted.value }, usage };

  const seen = new Set(known.map((k) => normalized(k.text)));
  const candidates = spec.candidatesOf(extracted.value).filter((candidate) => {
    const text = normalized(spec.textOf(candidate));
    if (text === "" || seen.has(text)) return false;
    seen.add(text);
    return true;
  });
  if (candidates.length === 0) return { plan: { inserts: [], merges: [] }, usage };

  const vectors = await deps.embedder.embedDocuments(candidates.map((c) => spec.textOf(c)));
  const { search_threshold: ownThreshold, search_top_k: topK } = spec.dedupSettings(config);
  const threshold = ownThreshold ?? deps.embedder.calibration.deduplicationThreshold;
  const close = await Promise.all(
    candidates.map(async (candidate, index) =>
      (await spec.similar(deps, scope, { userId, text: spec.textOf(candidate), vector: vectors[index]!, topK }, generation)).filter(
        (match) => match.similarity !== null && match.similarity >= threshold,
      ),
    ),
  );
  const plan: LearningPlan<C> = { inserts: [], merges: [] };
  const contested = candidates.flatMap((_, index) => (close[index]!.length > 0 ? [index] : []));
  const decisions = new Map<number, { duplicate_of: string | null; merged_content: string | null }>();
  if (contested.length > 0) {
    const existing = new Map(contested.flatMap((index) => close[index]!.map((match) => [match.id, match] as const)));
    const dedup = renderPrompt("learning-deduplication", {
      kind: spec.extractor,
      candidates: contested.map((index) => `${index}. ${spec.textOf(candidates[index]!)}`).join("\n"),
      existing: listed([...existing.values()]),
    });
    const reply = await deps.llm.generateObject({ system: dedup.system, user: dedup.user, schema: Deduplication, schemaName: "learning_deduplication" });
    usage.push({ ...reply.usage, stage: `${spec.stage}_deduplication` });
    for (const decision of reply.value.decisions) {
      // Only ids that were offered count: a model cannot point a merge at another user's learning.
      if (contested.includes(decision.candidate) && (decision.duplicate_of === null || existing.has(decision.duplicate_of))) {
        decisions.set(decision.candidate, decision);
      }
    }
  }
  const mergeTexts: { id: string; text: string }[] = [];
  candidates.forEach((candidate, index) => {
    const decision = decisions.get(index);
    if (!decision?.duplicate_of) plan.inserts.push({ candidate, embedding: vectors[index]! });
    else if (spec.mergesText && decision.merged_content?.trim() && !mergeTexts.some((m) => m.id === decision.duplicate_of)) {
      mergeTexts.push({ id: decision.duplicate_of, text: decision.merged_content.trim() });
    }
  });
  if (mergeTexts.length > 0) {
    const mergedVectors = await deps.embedder.embedDocuments(mergeTexts.map((m) => m.text));
    plan.merges = mergeTexts.map((m, index) => ({ ...m, embedding: mergedVectors[index]! }));
  }
  return { plan, usage };
}

function listed(learnings: readonly KnownLearning[]): string {
  return learnings.length === 0 ? "(none)" : learnings.map((l) => `- [${l.id}] ${l.text}`).join("\n");
}
