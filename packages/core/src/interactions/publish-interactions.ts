import { AppError, INTERACTION_FIELDS, type InteractionItem, isEmptyInteraction, PUBLISH_FIELDS, type PublishInteractionRequest } from "@als/contract";
import { type InteractionInsert, interactions, learning, pipelined, type RequestRecord, requests, type Scope, type Sql } from "@als/db";
import { getProjectConfig, type ProjectConfig } from "../config/project-config.ts";
import type { CoreDeps } from "../deps.ts";
import { crashAt } from "../durable/crash-at.ts";
import { noteEvaluationActivity } from "../evaluation/note-session-activity.ts";
import { noteOutcomeActivity } from "../outcomes/note-outcome-activity.ts";
import { assignExperimentArm } from "../search/experiment-assignment.ts";
import { exposureReceiptDigest, verifyExposureReceipt } from "../search/exposure-receipts.ts";
import { admitPublish } from "./publish-admission.ts";

export interface PublishedRequest {
  request: RequestRecord;
  interactionIds: number[];
  /** Dropped interactions and discarded field names, as the response lists them. */
  warnings: string[];
}

/**
 * What a caller adds to a publish: a write in the same transaction (an importer's deduplication
 * receipt, a client's idempotency key), given the request and the response's warnings; throwing
 * rolls the publish back.
 */
export interface PublishOptions {
  withinCommit?: (tx: Sql, request: RequestRecord, warnings: readonly string[]) => Promise<void>;
}

/**
 * Commits a request and its interactions, and their place in the user's interaction stream, in one
 * transaction (which concurrent publishes may share, see SharedCommits); then tells the orchestrator
 * that the user's stream moved. The interactions' vectors are left to the learning step
 * (embedPendingInteractions), so the model's time is not spent on the publish path; evaluation-only
 * publishes are scheduled for that too, though never extracted.
 */
export async function publishInteractions(
  deps: CoreDeps,
  scope: Scope,
  input: PublishInteractionRequest,
  options: PublishOptions = {},
): Promise<PublishedRequest> {
  const warnings = unknownFieldWarnings(input);
  const kept: InteractionItem[] = [];
  input.interaction_data_list.forEach((item, index) => {
    if (isEmptyInteraction(item)) warnings.push(`interaction_data_list[${index}]: empty interaction dropped`);
    else kept.push(item);
  });
  const config = await getProjectConfig(deps, scope);
  checkExperimentArm(config, input);

  const now = deps.now();
  const requestId = crypto.randomUUID();
  const retrieved = await Promise.all(kept.map((item) => storedRetrievedLearnings(deps, scope, input.session_id, item)));

  // Answered within the admission deadline: 503 capacity_deadline_exceeded without a slot, 504 admission_timeout without a commit.
  const admission = await admitPublish(deps, requestId);
  const lockOrder = `${scope.orgId}\u0000${scope.projectId}\u0000${input.user_id}`;
  const committing = deps.services.sharedCommits.run(
    lockOrder,
    async (tx) => {
      const firstSeq = await requests.reserveStreamPositions(tx, scope, input.user_id, kept.length, now);
      const request: RequestRecord = {
        request_id: requestId,
        user_id: input.user_id,
        session_id: input.session_id,
        source: input.source,
        agent_version: input.agent_version,
        skip_aggregation: input.skip_aggregation,
        force_extraction: input.force_extraction,
        evaluation_only: input.evaluation_only,
        override_learning_stall: input.override_learning_stall,
        completion_hint: input.session_finished,
        retrieval_experiment_id: input.retrieval_experiment_id ?? null,
        retrieval_experiment_arm: input.retrieval_experiment_arm ?? null,
        first_seq: firstSeq,
        last_seq: firstSeq + kept.length - 1,
        created_at: now,
      };
      const rows = kept.map(
        (item, index): InteractionInsert => ({
          user_id: input.user_id,
          request_id: requestId,
          session_id: input.session_id,
          seq: firstSeq + index,
          evaluation_only: input.evaluation_only,
          created_at: item.created_at ?? now,
          role: item.role,
          content: item.content,
          shadow_content: item.shadow_content,
          expert_content: item.expert_content,
          image_encoding: item.image_encoding ?? null,
          user_action: item.user_action,
          user_action_description: item.user_action_description ?? null,
          interacted_image_url: item.interacted_image_url ?? null,
          tools_used: item.tools_used.map((tool) => ({ tool_name: tool.tool_name, tool_data: tool.tool_data, status: tool.status })),
          citations: item.citations,
          retrieved_learnings: retrieved[index]!,
          embedding: null,
          embedding_model: null,
        }),
      );
      // Sent together without waiting for each other: the PostgreSQL driver pipelines them (one round
      // trip instead of five; the embedded one queues them), and the server runs them in this order.
      const [, interactionIds, , evaluationDue, inferenceDue] = await pipelined([
        requests.insertRequest(tx, scope, request),
        interactions.insertInteractions(tx, scope, rows),
        learning.ensureCursors(tx, scope, input.user_id),
        kept.length > 0 && noteEvaluationActivity(deps, tx, scope, config, request, kept),
        kept.length > 0 && noteOutcomeActivity(deps, tx, scope, request, kept),
      ]);
      await options.withinCommit?.(tx, request, warnings);
      return { request, interactionIds, evaluationDue, inferenceDue };
    },
    admission.signal,
  );
  const { evaluationDue, inferenceDue, ...committed } = await admission.answer(committing);
  // Committed, not yet answered: where a lost answer makes a client retry (see answerPublish's idempotency keys).
  crashAt(deps, "publish.after_commit");
  await deps.orchestrator?.schedule("learning", scope, input.user_id);
  if (evaluationDue) await deps.orchestrator?.schedule("evaluation", scope, input.session_id);
  if (inferenceDue) await deps.orchestrator?.schedule("outcomeInference", scope, input.session_id);
  return { ...committed, warnings };
}

/** The contract discards unknown keys instead of refusing them, and says so. */
function unknownFieldWarnings(input: PublishInteractionRequest): string[] {
  const warnings: string[] = [];
  const unknownTop = Object.keys(input).filter((key) => !PUBLISH_FIELDS.has(key));
  if (unknownTop.length > 0) warnings.push(`unknown field(s) discarded: ${unknownTop.join(", ")}`);
  if (input.request_id !== undefined) warnings.push(`request_id discarded: the service mints each request's id (this one is in the response's request_id)`);
  input.interaction_data_list.forEach((item, index) => {
    const unknown = Object.keys(item).filter((key) => !INTERACTION_FIELDS.has(key));
    if (unknown.length > 0) warnings.push(`interaction_data_list[${index}]: unknown field(s) discarded: ${unknown.join(", ")}`);
  });
  return warnings;
}

/** An echoed experiment must be the project's active one, and the arm the user's deterministic assignment. */
function checkExperimentArm(config: ProjectConfig, input: PublishInteractionRequest): void {
  const experimentId = input.retrieval_experiment_id;
  if (!experimentId) return;
  const active = config.retrieval_experiment;
  if (!active || active.experiment_id !== experimentId) {
    throw AppError.validation([{ loc: ["body", "retrieval_experiment_id"], msg: `no active retrieval experiment '${experimentId}'`, type: "value_error" }]);
  }
  const assigned = assignExperimentArm(experimentId, input.user_id, active.arm_split);
  if (input.retrieval_experiment_arm !== assigned) {
    throw AppError.validation([
      {
        loc: ["body", "retrieval_experiment_arm"],
        msg: `user '${input.user_id}' is assigned to '${assigned}' in experiment '${experimentId}'`,
        type: "value_error",
      },
    ]);
  }
}

/**
 * Stored interactions keep only a receipt's digest, and whether this service issued the receipt for
 * this session and user playbook (ID-only references stay unverified).
 */
async function storedRetrievedLearnings(deps: CoreDeps, scope: Scope, sessionId: string, item: InteractionItem) {
  return Promise.all(
    item.retrieved_learnings.map(async (learned) => {
      const receipt = learned.exposure_receipt;
      const playbookId = Number(learned.learning_id);
      const verified =
        receipt !== undefined &&
        learned.kind === "user_playbook" &&
        Number.isSafeInteger(playbookId) &&
        (await verifyExposureReceipt(deps, scope, receipt, { session_id: sessionId, user_playbook_id: playbookId }));
      return {
        kind: learned.kind,
        learning_id: learned.learning_id,
        exposure_receipt_digest: receipt === undefined ? null : exposureReceiptDigest(receipt),
        exposure_verified: verified,
      };
    }),
  );
}
