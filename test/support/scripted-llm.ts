import { createLlm } from "@als/ai";
import { type FakeLlmReply, type FakeLlmRequest, startFakeLlmServer } from "./llm-server.ts";

/** Facts the scripted model "finds" in a transcript: a phrase of the conversation → the profile it yields. */
export const PROFILE_FACTS: [string, { content: string; time_to_live: string; tags: string[] }][] = [
  ["golden retriever", { content: "Owns a golden retriever named Biscuit", time_to_live: "infinity", tags: ["pets"] }],
  ["i am vegan", { content: "Is vegan", time_to_live: "infinity", tags: ["diet"] }],
  ["in lisbon this week", { content: "Is in Lisbon this week", time_to_live: "one_week", tags: ["travel"] }],
];

/** The playbook the scripted model derives when an agent turn carries an expert's ideal response. */
export const EXPERT_PLAYBOOK = {
  trigger: "The user asks for a dinner recipe",
  content: "Offer only vegan recipes and say they are vegan",
  rationale: "The expert answer kept to vegan dishes; the agent suggested chicken",
  tags: ["recipes"],
};

/** The scripted model's thesaurus for document expansion: a word of a document → the terms it adds. */
export const EXPANSION_THESAURUS: Record<string, string[]> = {
  refund: ["reimbursement", "money back"],
  parcel: ["package", "shipment"],
  replacement: ["substitute", "swap"],
  vegan: ["plant based", "no animal products"],
};

/** Terms for each numbered document of a document-expansion prompt, from EXPANSION_THESAURUS. */
export function scriptedExpansion(request: FakeLlmRequest): FakeLlmReply {
  const documents = [...request.user.matchAll(/^(\d+)\. (.+)$/gm)].map((m) => ({ document: Number(m[1]), words: m[2]!.toLowerCase().split(/\W+/) }));
  return {
    json: { expansions: documents.map(({ document, words }) => ({ document, terms: words.flatMap((word) => EXPANSION_THESAURUS[word] ?? []) })) },
  };
}

/** The question the scripted model asks a person when offered ask_human and a window mentions the staging account. */
export const STAGING_QUESTION = "Is using the staging account a lasting preference of the user?";
/** The profile it extracts once a person answered yes. */
export const STAGING_PROFILE = { content: "Prefers the staging account for deployments", time_to_live: "infinity", tags: ["work"] };

/**
 * The scripted model's use of the ask_human tool (offered when the system prompt carries its
 * instructions): a profile window that mentions "staging account" asks STAGING_QUESTION instead of
 * deciding; resumed with the answers, it extracts STAGING_PROFILE besides its usual facts when the
 * answer is yes. Any
 * other offered reply carries an empty ask_human.
 */
function withHumanQuestions(request: FakeLlmRequest, reply: FakeLlmReply): FakeLlmReply {
  if (!("json" in reply)) return reply;
  const section = (/<transcript>([\s\S]*)<\/transcript>/.exec(request.user)?.[1] ?? "").toLowerCase();
  const staging = request.schemaName === "profile_extraction" && section.includes("staging account");
  const answers = /The person's answers:\n([\s\S]*?)\n\nNow give/.exec(request.user)?.[1];
  if (answers !== undefined) {
    if (!staging || !/Answer: yes/i.test(answers)) return reply;
    return { json: { profiles: [...(reply.json as { profiles: object[] }).profiles, STAGING_PROFILE] } };
  }
  if (!request.system.includes("You may ask a person instead of guessing")) return reply;
  const ask = staging
    ? [{ question_text: STAGING_QUESTION, answer_format: "yes/no", tags: ["preference"], context: "the user said to use the staging account" }]
    : [];
  return { json: { ...(reply.json as object), ...(staging && { profiles: [] }), ask_human: ask } };
}

/**
 * The deterministic model the learning tests run against: it answers the real prompts by looking
 * for known phrases in their <transcript> section, so a conversation in gives the same learnings out every time.
 * Deduplication marks a candidate as a restatement of the first offered learning it shares a
 * keyword with.
 */
export function scriptedReply(request: FakeLlmRequest): FakeLlmReply {
  return withHumanQuestions(request, extractionReply(request));
}

function extractionReply(request: FakeLlmRequest): FakeLlmReply {
  const section = (/<transcript>([\s\S]*)<\/transcript>/.exec(request.user)?.[1] ?? "").toLowerCase();
  if (request.schemaName === "profile_extraction") {
    return { json: { profiles: PROFILE_FACTS.filter(([phrase]) => section.includes(phrase)).map(([, fact]) => fact) } };
  }
  if (request.schemaName === "playbook_extraction") {
    return { json: { playbooks: section.includes("expert_content") ? [EXPERT_PLAYBOOK] : [] } };
  }
  if (request.schemaName === "learning_deduplication") {
    const candidates = [...request.user.matchAll(/^(\d+)\. (.+)$/gm)].map((m) => ({ index: Number(m[1]), text: m[2]!.toLowerCase() }));
    const existing = [...request.user.matchAll(/^- \[([^\]]+)\] (.+)$/gm)].map((m) => ({ id: m[1]!, text: m[2]!.toLowerCase() }));
    return {
      json: {
        decisions: candidates.map((c) => {
          const words = c.text.split(/\W+/).filter((w) => w.length > 4);
          const match = existing.find((e) => words.some((w) => e.text.includes(w)));
          return { candidate: c.index, duplicate_of: match?.id ?? null, merged_content: match ? `${match.text} (confirmed)` : null };
        }),
      },
    };
  }
  if (request.schemaName === "document_expansion") return scriptedExpansion(request);
  const judged = scriptedJudgement(request);
  if (judged) return judged;
  return { status: 400, error: { type: "invalid_request_error", message: `unscripted schema ${request.schemaName}` } };
}

/** A real OpenAI-compatible provider client pointed at a scripted server on 127.0.0.1. */
export async function startScriptedLlm(handler: (request: FakeLlmRequest) => FakeLlmReply | Promise<FakeLlmReply> = scriptedReply) {
  const server = await startFakeLlmServer(handler);
  const llm = createLlm({
    kind: "openai-compatible",
    model: "scripted-model",
    baseUrl: server.baseUrl,
    apiKey: "sk-test-secret-key",
    attempts: 3,
    contextWindowTokens: 128_000,
  });
  return { server, llm };
}

/** The scripted reviewer: it accepts a playbook whose content says KEEP, rejects one that says DROP, and broadens the rest (an edit). */
export function scriptedReview(request: FakeLlmRequest): FakeLlmReply {
  const content = /^content: (.*)$/m.exec(request.user)?.[1] ?? "";
  if (content.includes("KEEP")) return { json: { decision: "accept", reason: "supported by the conversation", reason_code: "grounded_useful", edited: null } };
  if (content.includes("DROP")) return { json: { decision: "reject", reason: "not supported", reason_code: "unsupported_evidence", edited: null } };
  return {
    json: {
      decision: "edit",
      reason: "too narrow",
      reason_code: "speculative",
      edited: { trigger: "Any order question", content: `${content} (broadened)`, rationale: "generalised" },
    },
  };
}

/**
 * Holds the first LLM call that `matches` until `release()`: a run caught in the middle of its
 * work. A handler awaits `wait(request)` before it answers; `reached` resolves when the call arrives.
 */
export function holdCall(matches: (request: FakeLlmRequest) => boolean) {
  let arrived!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  return {
    reached,
    release,
    /** Waits while this is the held call; every other call passes. */
    async wait(request: FakeLlmRequest): Promise<void> {
      if (held || !matches(request)) return;
      held = true;
      arrived();
      await released;
    },
  };
}

/** A user turn with one of these phrases makes the scripted success judge fail the session. */
export const FAILURE_PHRASES = ["that is wrong", "not what i asked"];
/** Each user turn starting with this counts as a correction; this anywhere marks the session escalated. */
export const CORRECTION_WORD = "actually";
export const ESCALATION_PHRASE = "talk to a human";
/** A user turn with this makes the scripted outcome inference answer success (a failure phrase wins). */
export const SATISFIED_PHRASE = "thanks, that works";
/** A diagnosis of the scripted learning judge cites this id besides the response's own: it is outside any session. */
export const OUT_OF_SESSION_EVIDENCE_ID = 999_999_999;

/**
 * The scripted judges, deterministic from the session they are shown:
 * - agent success: fails a session whose user said one of FAILURE_PHRASES (score 0.2, wrong_answer),
 *   else succeeds (score 0.9); corrections are user turns starting with "actually", escalation is
 *   ESCALATION_PHRASE; regular_vs_shadow regular_is_better when a turn has shadow_content;
 * - per learning: relevant when a word of the learning (five letters or more) is in the session;
 *   impact positive when relevant and cited, negative when its text says HARMFUL, else neutral; a
 *   playbook that was not positive gets a diagnosis citing the response and OUT_OF_SESSION_EVIDENCE_ID;
 * - shadow: the shadow answer wins when it says [better], a tie when both are equal, else the regular one;
 * - outcome inference: failure when a user turn says one of FAILURE_PHRASES, else success when one
 *   says SATISFIED_PHRASE, else unknown.
 */
export function scriptedJudgement(request: FakeLlmRequest): FakeLlmReply | undefined {
  const session = (/Session \(oldest first\):\n([\s\S]*?)(\n\n(Items|Turns to compare):|$)/.exec(request.user)?.[1] ?? "").toLowerCase();
  const userTurns = session.split("\n").filter((line) => /^\[\d+\] user:/.test(line));
  if (request.schemaName === "agent_success_evaluation") {
    const failed = userTurns.some((line) => FAILURE_PHRASES.some((phrase) => line.includes(phrase)));
    return {
      json: {
        is_success: !failed,
        success_score: failed ? 0.2 : 0.9,
        failure_type: failed ? "wrong_answer" : null,
        failure_reason: failed ? "The user said the answer was wrong" : null,
        number_of_correction_per_session: userTurns.filter((line) => new RegExp(`^\\[\\d+\\] user: ${CORRECTION_WORD}`).test(line)).length,
        user_turns_to_resolution: failed ? null : userTurns.length,
        is_escalated: session.includes(ESCALATION_PHRASE),
        regular_vs_shadow: session.includes("shadow_content") ? "regular_is_better" : null,
      },
    };
  }
  if (request.schemaName === "retrieved_learning_evaluation") {
    const items = [...request.user.matchAll(/^(\d+)\. given to \[(\d+)\] · (\w+) (\S+)( \(cited\))?: (.*)$/gm)];
    return {
      json: {
        verdicts: items.map((m) => {
          const [, item, interaction, kind, , cited, text] = m as unknown as string[];
          const relevant = text!
            .toLowerCase()
            .split(/\W+/)
            .some((word) => word.length >= 5 && session.includes(word));
          const impact = relevant && cited ? "positive" : text!.includes("HARMFUL") ? "negative" : "neutral";
          const diagnosed = kind !== "profile" && impact !== "positive";
          return {
            item: Number(item),
            is_relevant: relevant,
            relevance_reason: relevant ? "the session is about it" : "the session is about something else",
            impact,
            impact_reason: `judged ${impact}`,
            diagnosis: diagnosed
              ? {
                  category: impact === "negative" ? "content_defect" : "no_issue",
                  reason: impact === "negative" ? "the playbook's advice was wrong here" : "the playbook did not apply",
                  evidence_interaction_ids: [Number(interaction), OUT_OF_SESSION_EVIDENCE_ID],
                }
              : null,
          };
        }),
      },
    };
  }
  if (request.schemaName === "session_outcome_inference") {
    const failed = userTurns.some((line) => FAILURE_PHRASES.some((phrase) => line.includes(phrase)));
    const satisfied = userTurns.some((line) => line.includes(SATISFIED_PHRASE));
    const outcome = failed ? "failure" : satisfied ? "success" : "unknown";
    return { json: { outcome, reason: `the user's turns read as ${outcome}` } };
  }
  if (request.schemaName === "shadow_comparison") {
    const turns = [...request.user.matchAll(/^\[(\d+)\] regular: (.*)\n {4}shadow: (.*)$/gm)];
    return {
      json: {
        comparisons: turns.map(([, id, regular, shadow]) => {
          const winner = shadow!.includes("[better]") ? "shadow" : regular === shadow ? "tie" : "regular";
          return { interaction_id: Number(id), winner, is_significantly_better: winner !== "tie", comparison_reason: `${winner} judged better` };
        }),
      },
    };
  }
  return undefined;
}
