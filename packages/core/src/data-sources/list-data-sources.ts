import { CONNECTION_LIMIT, DATA_SOURCE_PROVIDERS, type DataSourceProvider, FILTER_OPS, FILTER_PATHS, PROVIDER_REGIONS } from "@als/contract";
import { dataSources, type Scope } from "@als/db";
import { PROVIDER_CREDENTIAL_FIELDS } from "@als/sources";
import type { CoreDeps } from "../deps.ts";
import { toConnection, toStream } from "./connection-view.ts";
import { listSampleSummaries } from "./samples.ts";

/** What each provider supports, as the collection list and setup-context report it. */
export const PROVIDER_CAPABILITIES = DATA_SOURCE_PROVIDERS.map((provider) => ({
  provider,
  regions: [...PROVIDER_REGIONS[provider]],
  credential_fields: { required: [...PROVIDER_CREDENTIAL_FIELDS[provider].required], optional: [...PROVIDER_CREDENTIAL_FIELDS[provider].optional] },
  filter_execution: provider === "trace_provider_a" ? ("before_download" as const) : ("after_download" as const),
  live_traffic_filters: provider === "trace_provider_a",
}));

/** The project's connections and streams, and the capabilities of the service's data sources. */
export async function listDataSources(deps: CoreDeps, scope: Scope) {
  const now = deps.now();
  const [connections, streams, samples] = await Promise.all([
    dataSources.listConnections(deps.db, scope, now),
    dataSources.listStreams(deps.db, scope, now),
    listSampleSummaries(deps, scope),
  ]);
  const streamOf = new Map(streams.map((stream) => [stream.connection_id, stream]));
  // Samples of an expired draft's stream are not the project's any more.
  const liveStreams = new Set(streams.map((stream) => stream.stream_id));
  const providerOf = new Map(connections.map((connection) => [connection.connection_id, connection.provider as DataSourceProvider]));
  return {
    connections: connections.map((connection) => toConnection(connection, streamOf.get(connection.connection_id))),
    streams: streams.map((stream) => toStream(stream, providerOf.get(stream.connection_id)!)),
    samples: samples.filter((sample) => liveStreams.has(sample.stream_id)),
    capabilities: {
      providers: PROVIDER_CAPABILITIES,
      connection_limit: CONNECTION_LIMIT,
      connections_in_use: connections.length,
      filter_paths: [...FILTER_PATHS],
      filter_ops: [...FILTER_OPS],
    },
  };
}
