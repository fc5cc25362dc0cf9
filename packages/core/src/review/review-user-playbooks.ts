import { renderPrompt } from "@als/ai";
import { interactions, playbookReviews, requests, userPlaybooks, type ReviewDecision, type Scope, type UserPlaybookRecord } from "@als/db";
import { z } from "zod";
import type { CoreDeps } from "../deps.ts";
import { requireLlm } from "../generation/generate-window.ts";
import { formatTranscript } from "../learning/transcript.ts";
import { embedPlaybooks } from "../playbooks/playbook-text.ts";

/** Cited interactions offered as evidence of how a playbook worked. */
const EVIDENCE_SHOWN = 20;

const Verdict = z.object({
  decision: z.enum(["accept", "reject", "edit"]),
  reason: z.string().min(1),
  /** The corrected playbook, for an edit. */
  edited: z.object({ trigger: z.string(), content: z.string(), rationale: z.string() }).nullable(),
});

export interface ReviewResult {
  user_playbook_id: number;
  decision: ReviewDecision;
  reason: string;
  /** The corrected playbook an edit proposes. */
  edited?: z.infer<typeof Verdict>["edited"];
}

export interface ReviewRequest {
  start_time: number;
  end_time: number;
  top_k: number;
  report_only: boolean;
}

/**
 * Reviews the CURRENT user playbooks created in a time range, newest first. Report mode decides
 * each inline and writes nothing. Apply mode answers at once with its run id and lets `runInBackground`
 * decide and commit one playbook at a time: reject archives it, edit archives it and inserts the
 * corrected one as CURRENT with its lineage under the run id, accept leaves it; a failure later in
 * the run keeps what was committed before.
 */
export async function reviewUserPlaybooks(
  deps: CoreDeps,
  scope: Scope,
  request: ReviewRequest,
  runInBackground: (work: Promise<unknown>) => void,
): Promise<{ run_id: string; results: ReviewResult[] }> {
  requireLlm(deps);
  const candidates = await userPlaybooks.listUserPlaybooks(deps.db, scope, { statuses: ["CURRENT"], start: request.start_time, end: request.end_time }, request.top_k);
  const runId = crypto.randomUUID();
  if (request.report_only) {
    const results: ReviewResult[] = [];
    for (const playbook of candidates) results.push(await decide(deps, scope, playbook));
    return { run_id: runId, results };
  }
  await playbookReviews.insertReviewRun(deps.db, scope, runId, deps.now());
  runInBackground(applyReviews(deps, scope, runId, candidates));
  return { run_id: runId, results: [] };
}

async function applyReviews(deps: CoreDeps, scope: Scope, runId: string, candidates: UserPlaybookRecord[]): Promise<void> {
  try {
    for (const playbook of candidates) await commitDecision(deps, scope, runId, playbook, await decide(deps, scope, playbook));
    await playbookReviews.finishReviewRun(deps.db, runId, { status: "completed", errorCode: null }, deps.now());
  } catch (error) {
    await playbookReviews.finishReviewRun(deps.db, runId, { status: "failed", errorCode: error instanceof Error ? error.name : "error" }, deps.now());
    throw error;
  }
}

/**
 * One playbook's decision. Skipped, with the reason, when what it was learned from cannot be shown:
 * no generating request (added by hand), the request or its interactions gone, or a request of
 * another user. Only interactions that cited the playbook are evidence; the generating request's
 * interactions give the chronology.
 */
async function decide(deps: CoreDeps, scope: Scope, playbook: UserPlaybookRecord): Promise<ReviewResult> {
  const skip = (reason: string): ReviewResult => ({ user_playbook_id: playbook.user_playbook_id, decision: "skip", reason });
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
  const { value } = await requireLlm(deps).generateObject({ system: prompt.system, user: prompt.user, schema: Verdict, schemaName: "playbook_review" });
  if (value.decision === "edit" && !value.edited?.content.trim()) return { user_playbook_id: playbook.user_playbook_id, decision: "accept", reason: value.reason };
  return { user_playbook_id: playbook.user_playbook_id, decision: value.decision, reason: value.reason, edited: value.edited };
}

/** Commits one decision with its record, before the next playbook is reviewed. */
async function commitDecision(deps: CoreDeps, scope: Scope, runId: string, playbook: UserPlaybookRecord, decided: ReviewResult): Promise<void> {
  const replacement = decided.decision === "edit" && decided.edited ? { ...decided.edited, vector: (await embedPlaybooks(deps, [decided.edited]))[0]! } : null;
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    let replacementId: number | null = null;
    if (decided.decision === "reject" || replacement) {
      // A playbook that stopped being CURRENT meanwhile is left as it is.
      if (!(await userPlaybooks.archiveCurrentUserPlaybook(tx, scope, playbook.user_playbook_id, now))) {
        await playbookReviews.recordReviewDecision(tx, runId, { userPlaybookId: playbook.user_playbook_id, decision: "skip", reason: "it changed status during the review", replacementId: null }, now);
        return;
      }
    }
    if (replacement) {
      const [inserted] = await userPlaybooks.insertUserPlaybooks(
        tx,
        scope,
        [
          {
            user_id: playbook.user_id,
            request_id: playbook.request_id,
            agent_version: playbook.agent_version,
            playbook_name: playbook.playbook_name,
            trigger: replacement.trigger,
            content: replacement.content,
            rationale: replacement.rationale,
            tags: playbook.tags,
            status: "CURRENT",
            source: playbook.source,
            embedding: replacement.vector,
            embedding_model: deps.embedder.modelId,
          },
        ],
        now,
      );
      replacementId = inserted!.user_playbook_id;
    }
    await playbookReviews.recordReviewDecision(tx, runId, { userPlaybookId: playbook.user_playbook_id, decision: decided.decision, reason: decided.reason, replacementId }, now);
  });
}
