import { AppError, type CollectionStatus, type TrafficFilter } from "@als/contract";
import { type CollectionRecord, dataSourceCollections, dataSources, type Scope, type Sql, type StreamRecord } from "@als/db";
import type { CoreDeps } from "../../deps.ts";
import { staleLifecycleRevision, staleRevision } from "../stale-revision.ts";
import { validatedDraft } from "../stream-drafts.ts";
import { activeCollection, toCollectionStatus } from "./collection-status.ts";

type Operation = "pause" | "resume" | "poll_now" | "stop";

/** A change under the lifecycle revision read: `set` applies it (advanceLifecycle), then the collection is scheduled. */
async function changeLifecycle(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; lifecycle_revision: number },
  change: (collection: CollectionRecord) => { set: string; params: unknown[]; stream?: (tx: Sql) => Promise<StreamRecord | undefined> },
): Promise<CollectionStatus> {
  const { collection } = await activeCollection(deps, scope, input.stream_id);
  if (collection.lifecycle_revision !== input.lifecycle_revision)
    throw staleLifecycleRevision(input.stream_id, collection.lifecycle_revision, input.lifecycle_revision);
  const { set, params, stream } = change(collection);
  const changed = await deps.db
    .transaction(async (tx) => {
      const updated = await dataSourceCollections.advanceLifecycle(tx, scope, input.stream_id, input.lifecycle_revision, set, params, deps.now());
      if (!updated) return undefined;
      const streamAfter = stream ? await stream(tx) : await dataSources.findStream(tx, scope, input.stream_id, deps.now());
      // A stream revision that moved under a filter edit rolls the whole change back.
      if (!streamAfter) throw new StreamMoved();
      return { collection: updated, stream: streamAfter };
    })
    .catch((error) => {
      if (error instanceof StreamMoved) return "stream_moved" as const;
      throw error;
    });
  if (changed === "stream_moved") {
    const current = (await activeCollection(deps, scope, input.stream_id)).stream.revision;
    throw staleRevision("stream", input.stream_id, current, (input as { stream_revision?: number }).stream_revision ?? current);
  }
  if (!changed) {
    const current = (await activeCollection(deps, scope, input.stream_id)).collection.lifecycle_revision;
    throw staleLifecycleRevision(input.stream_id, current, input.lifecycle_revision);
  }
  if (changed.collection.state === "active") await deps.orchestrator?.schedule("collection", scope, input.stream_id);
  return toCollectionStatus(deps, scope, changed.stream, changed.collection);
}

class StreamMoved extends Error {}

/**
 * The collection's operations (see COLLECTION_OPERATIONS): pause and stop take the lease back, so
 * the step working now commits nothing more (its next import finds the collection inactive);
 * resume continues from the checkpoints; poll_now makes live polling due at once.
 */
export function operateCollection(deps: CoreDeps, scope: Scope, input: { stream_id: string; lifecycle_revision: number; operation: Operation }) {
  return changeLifecycle(deps, scope, input, (collection) => {
    if (collection.state === "stopped")
      throw new AppError("conflict", `the collection of stream ${input.stream_id} is stopped for good: it cannot ${input.operation}`);
    switch (input.operation) {
      case "pause":
        return { set: "state = 'paused', lease_token = NULL, lease_expires_at = NULL", params: [] };
      case "stop":
        return { set: "state = 'stopped', lease_token = NULL, lease_expires_at = NULL", params: [] };
      case "resume":
        return { set: "state = 'active', lease_token = NULL, lease_expires_at = NULL", params: [] };
      case "poll_now":
        if (collection.state !== "active")
          throw new AppError("conflict", `the collection of stream ${input.stream_id} is ${collection.state}: resume it first`);
        return { set: "live_next_poll_at = least(live_next_poll_at, $5)", params: [deps.now()] };
    }
  });
}

/**
 * Raises the backfill's message-unit budget (rule 12): null means all of the history. A backfill
 * waiting at its budget goes on from the page it stopped at.
 */
export function extendBackfill(deps: CoreDeps, scope: Scope, input: { stream_id: string; lifecycle_revision: number; message_units: number | null }) {
  return changeLifecycle(deps, scope, input, (collection) => {
    if (collection.backfill_status === "not_requested") {
      throw AppError.validation([
        { loc: ["body", "message_units"], msg: "this collection imports no history: there is no backfill to extend", type: "value_error" },
      ]);
    }
    const current = collection.backfill_limit;
    if (input.message_units !== null && (current === null || input.message_units <= current)) {
      throw AppError.validation([
        {
          loc: ["body", "message_units"],
          msg: `must be above the current budget (${current === null ? "all of the history already" : `${current} message units`})`,
          type: "value_error",
        },
      ]);
    }
    return {
      set: "backfill_limit = $5, backfill_status = CASE WHEN backfill_status = 'budget_exhausted' THEN 'importing' ELSE backfill_status END",
      params: [input.message_units],
    };
  });
}

/**
 * Live filter edits (trace_provider_a only): the stream's filters and revision, and the collection's
 * filters for every page read from now on.
 */
export function editTrafficFilters(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; stream_revision: number; lifecycle_revision: number; filters: TrafficFilter[] },
) {
  return changeLifecycle(deps, scope, input, (collection) => {
    if (collection.provider !== "trace_provider_a") {
      throw AppError.validation([
        {
          loc: ["body", "filters"],
          msg: `traffic filters can be edited after activation on trace_provider_a only, not ${collection.provider}`,
          type: "value_error",
        },
      ]);
    }
    return {
      set: "filters = $5::text::jsonb",
      params: [JSON.stringify(input.filters)],
      stream: (tx) => dataSources.replaceStreamFilters(tx, scope, input.stream_id, input.stream_revision, input.filters, deps.now()),
    };
  });
}

/** Promotes a validated draft revision to the active mapping of the traces read from now on. */
export async function promoteMapping(deps: CoreDeps, scope: Scope, input: { stream_id: string; lifecycle_revision: number; mapping_revision: number }) {
  const draft = await validatedDraft(deps, scope, input.stream_id, input.mapping_revision);
  return changeLifecycle(deps, scope, input, () => ({
    set: "mapping_revision = $5, mapping_definition = $6::text::jsonb",
    params: [draft.revision, JSON.stringify(draft.definition)],
  }));
}
