import { type Llm, renderPrompt } from "@als/ai";
import { REVIEW_REASON_CODES, type ReviewReasonCode } from "@als/contract";
import { interactions, type ReviewDecision, requests, type Scope, type UserPlaybookRecord } from "@als/db";
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { formatTranscript } from "../learning/transcript.ts";

/** Cited interactions offered as evidence of how a playbook worked. */
const EVIDENCE_SHOWN = 20;

/** The codes the model chooses from; evidence_unavailable is a skip's, decided before any model call. */
const MODEL_REASON_CODES = REVIEW_REASON_CODES.filter((code) => code !== "evidence_unavailable") as [ReviewReasonCode, ...ReviewReasonCode[]];

const Verdict = z.object({
  decision: z.enum(["accept", "reject", "edit"]),
  reason: z.string().min(1),
  /** Null (or left out) by a model that gave none: see reasonCodeOf. */
  reason_code: z.enum(MODEL_REASON_CODES).nullable().default(null),
  /** The corrected playbook, for an edit. */
  edited: z.object({ trigger: z.string(), content: z.string(), rationale: z.string() }).nullable(),
});

export interface ReviewResult {
  user_playbook_id: number;
  decision: ReviewDecision;
  reason: string;
  reason_code: ReviewReasonCode;
  /** The corrected playbook an edit proposes. */
  edited?: z.infer<typeof Verdict>["edited"];
}

/**
 * One playbook's decision. Skipped, with the reason, when what it was learned from cannot be shown:
 * no generating request (added by hand), the request or its interactions gone, or a request of
 * another user. Only interactions that cited the playbook are evidence; the generating request's
 * interactions give the chronology.
 */
export async function decideReview(deps: CoreDeps & { llm: Llm }, scope: Scope, playbook: UserPlaybookRecord): Promise<ReviewResult> {
  const skip = (reason: string): ReviewResult => ({
    user_playbook_id: playbook.user_playbook_id,
    decision: "skip",
    reason,
    reason_code: "evidence_unavailable",
  });
  if (!playbook.request_id) return skip("no generation provenance: the playbook was not learned from a published request");
  const request = await requests.findRequest(deps.db, scope, playbook.request_id);
  if (!request) return skip("the request it was learned from is no longer available");
  if (request.user_id !== playbook.user_id) return skip("the request it was learned from belongs to another user");
  const chronology = await interactions.listInteractionsOfRequests(deps.db, scope, [request.request_id]);
  if (chronology.length === 0) return skip("the interactions it was learned from are no longer available");
  const cited = await interactions.interactionsCiting(
    deps.db,
    scope,
    { userId: playbook.user_id, kind: "user_playbook", learningId: String(playbook.user_playbook_id) },
    EVIDENCE_SHOWN,
  );
  const transcript = `${formatTranscript(chronology)}${cited.length > 0 ? `\n\n[cited] responses that used this playbook:\n${formatTranscript(cited.reverse())}` : ""}`;
  const prompt = renderPrompt("playbook-review", { trigger: playbook.trigger, content: playbook.content, rationale: playbook.rationale, transcript });
  const { value } = await deps.llm.generateObject({ system: prompt.system, user: prompt.user, schema: Verdict, schemaName: "playbook_review" });
  if (value.decision === "edit" && !value.edited?.content.trim())
    return { user_playbook_id: playbook.user_playbook_id, decision: "accept", reason: value.reason, reason_code: "grounded_useful" };
  return {
    user_playbook_id: playbook.user_playbook_id,
    decision: value.decision,
    reason: value.reason,
    reason_code: reasonCodeOf(value),
    edited: value.edited,
  };
}

/**
 * The model's code when it fits the decision. An accept is grounded_useful by definition; an edit or
 * reject whose model gave no code (or grounded_useful, which contradicts it) gets the catch-all
 * unsupported_evidence: the decision still stands, and clients need a code.
 */
function reasonCodeOf(verdict: z.infer<typeof Verdict>): ReviewReasonCode {
  if (verdict.decision === "accept") return "grounded_useful";
  return verdict.reason_code === null || verdict.reason_code === "grounded_useful" ? "unsupported_evidence" : verdict.reason_code;
}
