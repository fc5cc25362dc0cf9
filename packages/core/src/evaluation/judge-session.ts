import { type Llm, type LlmUsage, renderPrompt } from "@als/ai";
import {
  LEARNING_IMPACTS,
  MAX_DIAGNOSIS_EVIDENCE,
  MAX_DIAGNOSIS_REASON_CHARS,
  PLAYBOOK_DIAGNOSIS_CATEGORIES,
  REGULAR_VS_SHADOW,
  SHADOW_WINNERS,
} from "@als/contract";
import { evaluations, type InteractionRecord, type LearningResultInsert, type Scope } from "@als/db";
import { z } from "zod";
import type { ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { DEFAULT_SUCCESS_DEFINITION } from "../learning/default-definitions.ts";
import { formatTurn, type TranscriptLimits } from "../learning/transcript.ts";

/** The judges see at most this many turns of a session (its latest), each cut to fit. */
const MAX_TURNS = 200;
const JUDGE_TURNS: TranscriptLimits = { toolData: 300, text: 2_000 };

/** The stages of evaluation, as llm_usage (learning/costs) records them. */
export const EVALUATION_STAGES = {
  success: "agent_success_evaluation",
  learnings: "retrieved_learning_evaluation",
  shadow: "shadow_comparison",
} as const;

export type StageUsage = LlmUsage & { stage: string };

const SuccessVerdict = z.object({
  is_success: z.boolean(),
  success_score: z.number().min(0).max(1),
  failure_type: z.string().max(100).nullable(),
  failure_reason: z.string().max(4_000).nullable(),
  number_of_correction_per_session: z.number().int().min(0),
  user_turns_to_resolution: z.number().int().min(0).nullable(),
  is_escalated: z.boolean(),
  regular_vs_shadow: z.enum(REGULAR_VS_SHADOW).nullable(),
});
export type SuccessVerdict = z.infer<typeof SuccessVerdict>;

/** The judge may give more evidence than the contract keeps, and ids outside the session: both are cut after the reply (see diagnosisOf). */
const LearningVerdicts = z.object({
  verdicts: z.array(
    z.object({
      item: z.number().int(),
      is_relevant: z.boolean(),
      relevance_reason: z.string(),
      impact: z.enum(LEARNING_IMPACTS),
      impact_reason: z.string(),
      diagnosis: z
        .object({ category: z.enum(PLAYBOOK_DIAGNOSIS_CATEGORIES), reason: z.string(), evidence_interaction_ids: z.array(z.number().int()) })
        .nullable(),
    }),
  ),
});

const ShadowVerdicts = z.object({
  comparisons: z.array(
    z.object({
      interaction_id: z.number().int(),
      winner: z.enum(SHADOW_WINNERS),
      is_significantly_better: z.boolean(),
      comparison_reason: z.string().nullable(),
    }),
  ),
});
export type ShadowVerdict = z.infer<typeof ShadowVerdicts>["comparisons"][number];

/** The session as the judges read it: its latest turns, each headed by its interaction id. */
export function judgeTranscript(turns: readonly InteractionRecord[]): string {
  return turns
    .slice(-MAX_TURNS)
    .map((turn) => formatTurn(turn, turn.interaction_id, JUDGE_TURNS))
    .join("\n");
}

/** The agent success judge's verdict on a session (prompt agent-success-evaluation). */
export async function judgeSuccess(llm: Llm, config: ProjectConfig, transcript: string) {
  const prompt = renderPrompt("agent-success-evaluation", {
    success_definition: config.agent_success_config.success_definition_prompt ?? DEFAULT_SUCCESS_DEFINITION,
    transcript,
  });
  const { value, usage } = await llm.generateObject({
    system: prompt.system,
    user: prompt.user,
    schema: SuccessVerdict,
    schemaName: "agent_success_evaluation",
  });
  return { verdict: value, usage: { ...usage, stage: EVALUATION_STAGES.success }, prompt: prompt.id };
}

/**
 * Relevance and impact verdicts for every learning given to every response of the session (the
 * same learning on several responses is judged on each). Only a verified exposure receipt proves the
 * served version; a diagnosis keeps evidence of this session only, at most 20 ids.
 */
export async function judgeLearnings(
  deps: CoreDeps & { llm: Llm },
  scope: Scope,
  session: { userId: string; agentVersion: string; turns: readonly InteractionRecord[]; transcript: string },
): Promise<{ rows: LearningResultInsert[]; usage: StageUsage | null }> {
  const targets = session.turns.flatMap((turn) =>
    turn.retrieved_learnings.map((learned) => ({
      turn,
      learned,
      cited: turn.citations.some((cited) => cited.kind === learned.kind && String(cited.learning_id) === learned.learning_id),
    })),
  );
  // A learning given twice to one response is one verdict (the row's key).
  const unique = [...new Map(targets.map((target) => [`${target.turn.interaction_id}|${target.learned.kind}|${target.learned.learning_id}`, target])).values()];
  if (unique.length === 0) return { rows: [], usage: null };
  const texts = await evaluations.learningTexts(
    deps.db,
    scope,
    unique.map((target) => target.learned),
  );
  const items = unique
    .map(({ turn, learned, cited }, index) => {
      const text = texts.get(`${learned.kind}:${learned.learning_id}`) ?? "(no longer stored)";
      return `${index + 1}. given to [${turn.interaction_id}] · ${learned.kind} ${learned.learning_id}${cited ? " (cited)" : ""}: ${text}`;
    })
    .join("\n");
  const prompt = renderPrompt("retrieved-learning-evaluation", { transcript: session.transcript, items });
  const { value, usage } = await deps.llm.generateObject({
    system: prompt.system,
    user: prompt.user,
    schema: LearningVerdicts,
    schemaName: "retrieved_learning_evaluation",
  });
  const byItem = new Map(value.verdicts.map((verdict) => [verdict.item, verdict]));
  const sessionIds = new Set(session.turns.map((turn) => turn.interaction_id));
  const rows = unique.map(({ turn, learned, cited }, index): LearningResultInsert => {
    const verdict = byItem.get(index + 1);
    return {
      user_id: session.userId,
      session_id: turn.session_id,
      agent_version: session.agentVersion,
      interaction_id: turn.interaction_id,
      interaction_created_at: turn.created_at,
      kind: learned.kind as LearningResultInsert["kind"],
      learning_id: learned.learning_id,
      cited,
      exposure_verified: learned.exposure_verified,
      is_relevant: verdict?.is_relevant ?? null,
      relevance_reason: verdict?.relevance_reason ?? "",
      impact: verdict?.impact ?? null,
      impact_reason: verdict?.impact_reason ?? "",
      diagnosis: learned.kind === "profile" || !verdict?.diagnosis ? null : diagnosisOf(verdict.diagnosis, sessionIds),
    };
  });
  return { rows, usage: { ...usage, stage: EVALUATION_STAGES.learnings } };
}

/**
 * A diagnosis within the contract's limits: evidence outside the session is discarded (and repeats),
 * at most 20 ids kept; the reason is cut to 4,000 characters, and a blank one drops the diagnosis.
 */
export function diagnosisOf(
  diagnosis: { category: (typeof PLAYBOOK_DIAGNOSIS_CATEGORIES)[number]; reason: string; evidence_interaction_ids: number[] },
  sessionInteractionIds: ReadonlySet<number>,
): LearningResultInsert["diagnosis"] {
  const reason = diagnosis.reason.trim().slice(0, MAX_DIAGNOSIS_REASON_CHARS);
  if (reason === "") return null;
  const evidence = [...new Set(diagnosis.evidence_interaction_ids.filter((id) => sessionInteractionIds.has(id)))].slice(0, MAX_DIAGNOSIS_EVIDENCE);
  return { category: diagnosis.category, reason, evidence_interaction_ids: evidence };
}

/**
 * The shadow judge's verdict on each turn with shadow_content, under the pinned prompt version
 * (shadow_comparison_judge_prompt_version). Null when that version has no prompt here: its verdicts
 * cannot be made, and verdicts of other versions would not be read.
 */
export async function judgeShadowTurns(
  llm: Llm,
  config: ProjectConfig,
  session: { turns: readonly InteractionRecord[]; transcript: string },
): Promise<{ verdicts: ShadowVerdict[]; usage: StageUsage | null; version: string } | null> {
  const version = config.shadow_comparison_judge_prompt_version;
  const number = /^v(\d+)$/.exec(version)?.[1];
  if (number === undefined || !shadowPromptExists(Number(number))) return null;
  const shadowTurns = session.turns.filter((turn) => turn.shadow_content.trim() !== "");
  if (shadowTurns.length === 0) return { verdicts: [], usage: null, version };
  const turns = shadowTurns.map((turn) => `[${turn.interaction_id}] regular: ${turn.content}\n    shadow: ${turn.shadow_content}`).join("\n");
  const prompt = renderPrompt("shadow-comparison", { transcript: session.transcript, turns }, Number(number));
  const { value, usage } = await llm.generateObject({ system: prompt.system, user: prompt.user, schema: ShadowVerdicts, schemaName: "shadow_comparison" });
  const asked = new Set(shadowTurns.map((turn) => turn.interaction_id));
  const verdicts = [
    ...new Map(value.comparisons.filter((verdict) => asked.has(verdict.interaction_id)).map((verdict) => [verdict.interaction_id, verdict])).values(),
  ];
  return { verdicts, usage: { ...usage, stage: EVALUATION_STAGES.shadow }, version };
}

function shadowPromptExists(version: number): boolean {
  try {
    renderPrompt("shadow-comparison", { transcript: "", turns: "" }, version);
    return true;
  } catch {
    return false;
  }
}
