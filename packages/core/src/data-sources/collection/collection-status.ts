import { AppError, type COLLECTION_STATES, type CollectionStatus, type DataSourceProvider, type ProjectConfig } from "@als/contract";
import { type CollectionRecord, dataSourceCollections, dataSourceHeld, type ImportPhase, type Scope, type Sql, type StreamRecord } from "@als/db";
import { getProjectConfig } from "../../config/project-config.ts";
import type { CoreDeps } from "../../deps.ts";
import { filterExecutionOf } from "../filter-execution.ts";
import { liveStream } from "../stream-drafts.ts";

/** How often live traffic is polled; `poll_now` reads at once. */
export const LIVE_POLL_SECONDS = 60;

/** The activated stream's collection; 404 before activation (or when the stream is gone). */
export async function activeCollection(deps: CoreDeps, scope: Scope, streamId: string): Promise<{ stream: StreamRecord; collection: CollectionRecord }> {
  const stream = await liveStream(deps, scope, streamId);
  const collection = await dataSourceCollections.findCollection(deps.db, scope, streamId);
  if (!collection) throw AppError.notFound(`collection of stream '${streamId}' (activate the stream first)`);
  return { stream, collection };
}

export async function getCollectionStatus(deps: CoreDeps, scope: Scope, streamId: string): Promise<CollectionStatus> {
  const { stream, collection } = await activeCollection(deps, scope, streamId);
  return toCollectionStatus(deps, scope, stream, collection);
}

/** The state a collection shows (COLLECTION_STATES): an active one is backfilling until its backfill stops importing. */
export function collectionStateName(collection: Pick<CollectionRecord, "state" | "backfill_status">): (typeof COLLECTION_STATES)[number] {
  if (collection.state !== "active") return collection.state;
  return collection.backfill_status === "importing" ? "backfilling" : "collecting";
}

const countsOf = (collection: CollectionRecord, phase: ImportPhase) => {
  const counts = collection.counts[phase] ?? {};
  return {
    read: counts.read ?? 0,
    imported: counts.imported ?? 0,
    duplicates: counts.duplicates ?? 0,
    held: counts.held ?? 0,
    excluded: counts.excluded ?? 0,
    spans_read: counts.spans_read ?? 0,
    spans_bounded: counts.spans_bounded ?? 0,
  };
};

/**
 * The wire form: state names from the stored state and the backfill's progress (see COLLECTION_STATES).
 * `within`: a transaction to read in, with the project's configuration read before it (a read on the
 * pool while the transaction holds PGlite's one connection would wait for the transaction's end).
 */
export async function toCollectionStatus(
  deps: CoreDeps,
  scope: Scope,
  stream: StreamRecord,
  collection: CollectionRecord,
  within?: { tx: Sql; config: ProjectConfig },
): Promise<CollectionStatus> {
  const db = within?.tx ?? deps.db;
  // One statement at a time: in a transaction, statements sent together would fail together.
  const held = await dataSourceHeld.countHeld(db, scope, collection.stream_id);
  const cooldown = await dataSourceCollections.connectionCooldown(db, scope, collection.connection_id);
  const config = within?.config ?? (await getProjectConfig(deps, scope));
  const state = collectionStateName(collection);
  return {
    stream_id: collection.stream_id,
    connection_id: collection.connection_id,
    provider: collection.provider,
    region: collection.region,
    external_project_id: collection.external_project_id,
    workspace_id: collection.workspace_id,
    activated_at: collection.activated_at,
    state,
    lifecycle_revision: collection.lifecycle_revision,
    stream_revision: stream.revision,
    mapping_revision: collection.mapping_revision,
    filters: collection.filters,
    filter_execution: filterExecutionOf(collection.provider as DataSourceProvider, collection.filters, collection.provider_endpoint_note !== null),
    backfill: {
      status: collection.backfill_status,
      history_start: collection.history_start,
      history_end: collection.history_end,
      pages: collection.backfill_pages,
      message_units_used: collection.backfill_units,
      message_unit_limit: collection.backfill_limit,
      counts: countsOf(collection, "backfill"),
    },
    live: {
      watermark: collection.live_watermark,
      last_polled_at: collection.live_polled_at,
      next_poll_at: collection.live_next_poll_at,
      poll_interval_seconds: LIVE_POLL_SECONDS,
      counts: countsOf(collection, "live"),
    },
    retry: { queued: held.queued, counts: countsOf(collection, "retry") },
    held: held.held,
    cooldown_until: cooldown !== null && cooldown > deps.now() ? cooldown : null,
    last_error:
      collection.last_error_code === null
        ? null
        : { code: collection.last_error_code, message: collection.last_error_message ?? "", at: collection.last_error_at ?? collection.updated_at },
    provider_endpoint: collection.provider_endpoint === null ? null : { endpoint: collection.provider_endpoint, note: collection.provider_endpoint_note },
    evaluation_settings: {
      sampling_rate: config.agent_success_config.sampling_rate,
      retrieved_learning_sampling_rate: config.agent_success_config.retrieved_learning_sampling_rate,
      evaluation_only: false,
    },
    updated_at: collection.updated_at,
  };
}
