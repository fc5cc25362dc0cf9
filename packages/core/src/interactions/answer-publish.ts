import { PUBLISH_WAIT_MS, type PublishInteractionRequest, type PublishInteractionResponse } from "@als/contract";
import { type IdempotencyKeyRecord, idempotencyKeys, type Scope } from "@als/db";
import { maskedStorageLabel } from "../config/storage-view.ts";
import type { CoreDeps } from "../deps.ts";
import { type IdempotencyKey, KeyTaken, recordKeyOrThrow, refuseOtherRequest } from "../idempotency/idempotency-key.ts";
import { waitForPublishLearning } from "../learning/wait-for-publish-learning.ts";
import { type PublishedRequest, publishInteractions } from "./publish-interactions.ts";

/** What a publish committed, as its answer needs it; kept with an idempotency key, to answer a retry. */
interface CommittedPublish {
  request_id: string;
  interactions_created: number;
  warnings: string[];
}

export interface PublishAnswerOptions {
  /** The request's Idempotency-Key, if it sent one. */
  idempotencyKey?: IdempotencyKey | undefined;
  /** The caller is a tenant of a hosted service: no storage path in the answer (see maskedStorageLabel). */
  hosted: boolean;
}

/**
 * publish_interaction's answer. With an idempotency key, a request committed under that key before
 * (the first attempt answered, lost its connection, or is still waiting for learning) is not
 * published again: its answer is sent again when there was one, else built from what it committed
 * (waiting for learning again if asked to). The key is recorded in the publish's own transaction,
 * so it exists exactly when the request does, whatever became of the process that committed it.
 */
export async function answerPublish(
  deps: CoreDeps,
  scope: Scope,
  input: PublishInteractionRequest,
  options: PublishAnswerOptions,
): Promise<PublishInteractionResponse> {
  const { idempotencyKey: key, hosted } = options;
  // The contract's 240 s include admission.
  const deadline = performance.now() + PUBLISH_WAIT_MS;
  if (!key) return answerOf(deps, scope, hosted, input, committedOf(await publishInteractions(deps, scope, input)), deadline);
  const earlier = await idempotencyKeys.findKey(deps.db, scope, key.key, deps.now());
  if (earlier) return answerAgain(deps, scope, hosted, input, key, earlier, deadline);
  let committed: CommittedPublish;
  try {
    const published = await publishInteractions(deps, scope, input, {
      withinCommit: (tx, request, warnings) =>
        recordKeyOrThrow(deps, tx, scope, key, {
          userId: input.user_id,
          outcome: { request_id: request.request_id, interactions_created: request.last_seq - request.first_seq + 1, warnings: [...warnings] },
        }),
    });
    committed = committedOf(published);
  } catch (error) {
    if (!(error instanceof KeyTaken)) throw error;
    const first = await idempotencyKeys.findKey(deps.db, scope, key.key, deps.now());
    if (!first) throw error;
    return answerAgain(deps, scope, hosted, input, key, first, deadline);
  }
  const answer = await answerOf(deps, scope, hosted, input, committed, deadline);
  // Without it a retry builds the same answer from what was committed, so a failure here is no failure of the publish.
  await idempotencyKeys.saveAnswer(deps.db, scope, key.key, answer).catch(() => {});
  return answer;
}

function committedOf(published: PublishedRequest): CommittedPublish {
  return { request_id: published.request.request_id, interactions_created: published.interactionIds.length, warnings: published.warnings };
}

/** The answer of a request committed under the key before: as it was sent, or built again from what it committed. */
function answerAgain(
  deps: CoreDeps,
  scope: Scope,
  hosted: boolean,
  input: PublishInteractionRequest,
  key: IdempotencyKey,
  earlier: IdempotencyKeyRecord,
  deadline: number,
): Promise<PublishInteractionResponse> | PublishInteractionResponse {
  refuseOtherRequest(earlier, key);
  if (earlier.answer) return earlier.answer as PublishInteractionResponse;
  return answerOf(deps, scope, hosted, input, earlier.outcome as unknown as CommittedPublish, deadline);
}

/** The answer of a committed request; from here on nothing may answer it as failed (see waitForPublishLearning). */
async function answerOf(
  deps: CoreDeps,
  scope: Scope,
  hosted: boolean,
  input: PublishInteractionRequest,
  committed: CommittedPublish,
  deadline: number,
): Promise<PublishInteractionResponse> {
  const requestId = committed.request_id;
  const learning = input.wait_for_response
    ? await waitForPublishLearning(deps, scope, { request_id: requestId, user_id: input.user_id }, deadline - performance.now())
    : undefined;
  const learned = learning?.learned ?? { profiles: 0, user_playbooks: 0, profiles_merged: 0 };
  const storage = { storage_type: deps.db.kind, storage_label: maskedStorageLabel(deps, hosted) ?? deps.db.kind };
  const stored = `Published ${committed.interactions_created} interaction(s)`;
  return {
    success: true,
    message: learning?.unknown
      ? `${stored}; whether learning from them is done is not known yet (${learning.unknown}): look it up with GET /api/learning_status?request_id=${requestId}`
      : stored,
    request_id: requestId,
    storage_routing: storage,
    ...storage,
    learning_status: learning?.status ?? "deferred",
    interactions_created: committed.interactions_created,
    profiles_created: learned.profiles,
    user_playbooks_created: learned.user_playbooks,
    profiles_added: learned.profiles,
    profiles_updated: learned.profiles_merged,
    playbooks_added: learned.user_playbooks,
    playbooks_updated: 0,
    warnings: committed.warnings,
  };
}
