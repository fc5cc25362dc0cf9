import type { Connection, DataSourceProvider, Stream } from "@als/contract";
import type { ConnectionRecord, StreamRecord } from "@als/db";
import { filterExecutionOf } from "./filter-execution.ts";

/** The wire form of a connection: never its credentials. */
export function toConnection(record: ConnectionRecord, stream: StreamRecord | undefined): Connection {
  return {
    connection_id: record.connection_id,
    name: record.name,
    provider: record.provider as DataSourceProvider,
    region: record.region,
    workspace_id: record.workspace_id,
    stream_id: stream?.stream_id ?? null,
    external_project_id: stream?.external_project_id ?? null,
    revision: record.revision,
    // Activation keeps the connection for good (its draft expiry is cleared).
    status: record.draft_expires_at === null ? "activated" : "draft",
    draft_expires_at: record.draft_expires_at,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

export function toStream(record: StreamRecord, provider: DataSourceProvider): Stream {
  return {
    stream_id: record.stream_id,
    connection_id: record.connection_id,
    external_project_id: record.external_project_id,
    external_project_name: record.external_project_name,
    workspace_id: record.workspace_id,
    filters: record.filters,
    filter_execution: filterExecutionOf(provider, record.filters),
    revision: record.revision,
    status: "draft",
    history: record.history,
    history_start: record.history_start,
    history_end: record.history_end,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}
