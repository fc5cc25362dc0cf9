import { type GenerationRunOf, playbookReviews, type Scope, type UserPlaybookRecord, userPlaybooks } from "@als/db";
import type { GenerationDeps } from "../generation/generate-window.ts";
import type { RunCursor } from "../generation/run-cursor.ts";
import { embedPlaybooks } from "../playbooks/playbook-text.ts";
import { decideReview, type ReviewResult } from "./decide-review.ts";

const CHANGED_DURING_REVIEW = "it changed status during the review";

/**
 * The work of an applied review: each playbook the request chose, newest first, is decided and its
 * decision committed before the next is reviewed: reject archives it, edit archives it and inserts
 * the corrected one as CURRENT with its lineage under the run id, accept leaves it. The run's
 * recorded decisions are its cursor: a run taken up again reviews only the playbooks without one.
 */
export async function applyReviews(deps: GenerationDeps, scope: Scope, run: GenerationRunOf<"review_apply">, cursor: RunCursor): Promise<void> {
  const reviewed = new Set((await playbookReviews.decisionsOfRun(deps.db, run.run_id)).map((d) => d.user_playbook_id));
  const remaining = run.params.user_playbook_ids.filter((id) => !reviewed.has(id));
  if (remaining.length === 0) return;
  const current = await userPlaybooks.listUserPlaybooks(deps.db, scope, { userPlaybookIds: remaining, statuses: ["CURRENT"] }, remaining.length);
  const byId = new Map(current.map((playbook) => [playbook.user_playbook_id, playbook]));
  for (const id of remaining) {
    const playbook = byId.get(id) ?? null;
    const decided = playbook
      ? await decideReview(deps, scope, playbook)
      : { user_playbook_id: id, decision: "skip" as const, reason: CHANGED_DURING_REVIEW, reason_code: "evidence_unavailable" as const };
    await commitDecision(deps, scope, cursor, playbook, decided);
  }
}

/**
 * Commits one decision with its record and the run's count of it. A playbook that stopped being
 * CURRENT meanwhile is left as it is, and the decision recorded as a skip.
 */
async function commitDecision(
  deps: GenerationDeps,
  scope: Scope,
  cursor: RunCursor,
  playbook: UserPlaybookRecord | null,
  decided: ReviewResult,
): Promise<void> {
  const replacement =
    playbook && decided.decision === "edit" && decided.edited ? { ...decided.edited, vector: (await embedPlaybooks(deps, [decided.edited]))[0]! } : null;
  await deps.db.transaction(async (tx) => {
    const now = deps.now();
    const archives = decided.decision === "reject" || replacement !== null;
    const changed = !playbook || (archives && !(await userPlaybooks.archiveCurrentUserPlaybook(tx, scope, playbook.user_playbook_id, now)));
    const { decision, reason } = changed ? { decision: "skip" as const, reason: CHANGED_DURING_REVIEW } : decided;
    // Before the decision's own rows: a worker that lost the run stops here.
    await cursor.advance(tx, { add: { [decision]: 1 } });
    let replacementId: number | null = null;
    if (playbook && replacement && !changed) {
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
    await playbookReviews.recordReviewDecision(tx, cursor.runId, { userPlaybookId: decided.user_playbook_id, decision, reason, replacementId }, now);
  });
}
