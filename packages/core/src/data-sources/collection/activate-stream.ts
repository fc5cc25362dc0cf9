import { AppError, type CollectionStatus, INITIAL_BACKFILL_UNITS } from "@als/contract";
import { dataSourceCollections, dataSources, type Scope, type StreamRecord } from "@als/db";
import { getProjectConfig } from "../../config/project-config.ts";
import type { CoreDeps } from "../../deps.ts";
import type { RecordAnswer } from "../../idempotency/write-once.ts";
import { staleRevision } from "../stale-revision.ts";
import { liveStream, validatedDraft } from "../stream-drafts.ts";
import { toCollectionStatus } from "./collection-status.ts";

interface ActivateInput {
  stream_id: string;
  stream_revision: number;
  mapping_revision: number;
  history_start?: number | undefined;
  history_end?: number | undefined;
}

/**
 * Activation (202): the stream's validated mapping starts a collection at lifecycle revision 1
 * that backfills the history range and follows live traffic from now on. What it fixes (provider,
 * region, external project, workspace, activation time) is copied onto the collection; the stream
 * revision advances and the connection stops being an expiring setup draft. The work itself is the
 * collection's durable step (runCollectionStep).
 */
export async function activateStream(
  deps: CoreDeps,
  scope: Scope,
  input: ActivateInput,
  /** An Idempotency-Key's (see writeOnce): the status answered is the answer kept with the key. */
  record?: RecordAnswer<CollectionStatus>,
): Promise<CollectionStatus> {
  const now = deps.now();
  const stream = await liveStream(deps, scope, input.stream_id);
  if (stream.revision !== input.stream_revision) throw staleRevision("stream", input.stream_id, stream.revision, input.stream_revision);
  const connection = await dataSources.findConnection(deps.db, scope, stream.connection_id, now);
  if (!connection) throw AppError.notFound(`stream '${input.stream_id}'`);
  const draft = await validatedDraft(deps, scope, input.stream_id, input.mapping_revision);
  const history = historyRange(stream, input, now);
  const config = await getProjectConfig(deps, scope);
  const activated = await deps.db.transaction(async (tx) => {
    if (await dataSourceCollections.findCollection(tx, scope, input.stream_id)) {
      throw new AppError("conflict", `stream ${input.stream_id} is already activated: read its status`);
    }
    const saved = await dataSources.saveHistoryDraft(tx, scope, input.stream_id, input.stream_revision, {
      history: history !== null,
      history_start: history?.start ?? null,
      history_end: history?.end ?? null,
      updated_at: now,
    });
    if (!saved) return undefined;
    await dataSources.keepConnection(tx, scope, connection.connection_id);
    const collection = await dataSourceCollections.insertCollection(tx, scope, {
      stream_id: saved.stream_id,
      connection_id: connection.connection_id,
      provider: connection.provider,
      region: connection.region,
      external_project_id: saved.external_project_id,
      workspace_id: saved.workspace_id,
      activated_at: now,
      state: "active",
      lifecycle_revision: 1,
      mapping_revision: draft.revision,
      mapping_definition: draft.definition,
      filters: saved.filters,
      history_start: history?.start ?? null,
      history_end: history?.end ?? null,
      backfill_status: history === null ? "not_requested" : "importing",
      backfill_limit: INITIAL_BACKFILL_UNITS,
      // Live traffic is what starts from activation on; before it is history.
      live_watermark: now,
      live_next_poll_at: now,
      next_run_at: now,
      created_at: now,
    });
    const status = await toCollectionStatus(deps, scope, saved, collection, { tx, config });
    await record?.(tx, status);
    return status;
  });
  if (!activated) throw staleRevision("stream", input.stream_id, (await liveStream(deps, scope, input.stream_id)).revision, input.stream_revision);
  await deps.orchestrator?.schedule("collection", scope, input.stream_id);
  return activated;
}

/**
 * The history range activation imports (rule 5): the request's bounds, else the history draft's;
 * null when the draft says no history and the request names none. 0 < start < end <= now.
 */
function historyRange(stream: StreamRecord, input: ActivateInput, now: number): { start: number; end: number } | null {
  const requested = input.history_start !== undefined || input.history_end !== undefined;
  if (!requested && !stream.history) return null;
  const start = input.history_start ?? stream.history_start;
  const end = input.history_end ?? stream.history_end;
  const issue = (field: string, msg: string) => AppError.validation([{ loc: ["body", field], msg, type: "value_error" }]);
  if (start === null) throw issue("history_start", "activation needs the start of the history range (or a history draft saved with history false)");
  if (end === null) throw issue("history_end", "activation needs the end of the history range (or a history draft saved with history false)");
  if (start <= 0) throw issue("history_start", "must be after 0");
  if (end <= start) throw issue("history_end", `must be after history_start (${start})`);
  if (end > now) throw issue("history_end", `must not be in the future (now is ${now})`);
  return { start, end };
}
