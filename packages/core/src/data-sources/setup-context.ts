import {
  AppError,
  COLLECTION_OPERATIONS,
  COLLECTION_STATES,
  CONNECTION_LIMIT,
  DATA_SOURCE_PROVIDERS,
  FILTER_EXECUTIONS,
  FILTER_OPS,
  FILTER_PATHS,
  INITIAL_BACKFILL_UNITS,
  MAPPING_FIELDS,
  MAPPING_TRANSFORMS,
  MAX_FILTER_VALUE_CHARS,
  MAX_FILTERS,
  MAX_IN_VALUES,
  MAX_TAG_VALUE_CHARS,
  type MappingField,
  PROVIDER_REGIONS,
  type SetupContext,
} from "@als/contract";
import { dataSources, type Scope } from "@als/db";
import {
  BRAINTRUST_SPAN_LIMIT,
  MAX_OBSERVATION_PAGES,
  MAX_SPAN_PAGES,
  OBSERVATION_PAGE,
  PROVIDER_MAX_RETRY_WAIT_SECONDS,
  PROVIDER_READ_ATTEMPTS,
  SPAN_PAGE,
  SUPPORTING_SPAN_BYTES,
  SUPPORTING_SPAN_LIMIT,
} from "@als/sources";
import type { CoreDeps } from "../deps.ts";
import { DRAFT_CONNECTION_SECONDS } from "./connections.ts";
import { PROVIDER_CAPABILITIES } from "./list-data-sources.ts";

/** What each mapping field should point at (setup-context and preview). */
export const FIELD_GUIDANCE: Record<MappingField, string> = {
  user: "pointer to the end user's id",
  session: "pointer to the conversation or thread id",
  input: "pointer to the user's message; prefer first_text_block on a content array",
  output: "pointer to the agent's answer; prefer first_text_block on a content array",
  version: "pointer to the agent version",
  references: "pointer to the retrieved-learnings metadata entry",
  source: "pointer to the source label",
  timestamp: "pointer to the turn's time",
  completion: "pointer that says the turn is complete",
};

export const SETUP_VERSION = 1;

/** The parts of the setup contract that do not depend on the project: the service's rules. */
const RULES = {
  setup_version: SETUP_VERSION,
  providers: PROVIDER_CAPABILITIES,
  provider_regions: Object.fromEntries(DATA_SOURCE_PROVIDERS.map((provider) => [provider, [...PROVIDER_REGIONS[provider]]])),
  activation: {
    inputs: ["stream_revision", "mapping_revision", "history range"],
    history_range: "Unix seconds, start-inclusive and end-exclusive, 0 < start < end <= now",
    fixed_after_activation: ["provider", "region", "external project", "workspace", "original activation timestamp"],
    collection_states: [...COLLECTION_STATES],
    operations: [...COLLECTION_OPERATIONS],
  },
  traffic_filter_pushdown: {
    trace_provider_a: "before_pagination_with_local_checks",
    trace_provider_b: "before_pagination_with_local_checks (tags and span name; after_download where read through the legacy endpoints)",
    trace_provider_c: "after_download",
  },
  provider_filter_execution: {
    values: [...FILTER_EXECUTIONS],
    pushed_down: ["tags", "span_attributes.name", "exists on any path"],
    local: ["metadata.* eq and in"],
  },
  traffic_filter_contract: {
    paths: [...FILTER_PATHS],
    ops: [...FILTER_OPS],
    max_filters: MAX_FILTERS,
    value_chars: { min: 1, max: MAX_FILTER_VALUE_CHARS, tags_max: MAX_TAG_VALUE_CHARS },
    in_values: { min: 1, max: MAX_IN_VALUES },
    combine: "and",
    values: "separate JSON strings kept literally; numbers compare by string form, booleans as 'true'/'false'",
  },
  mapping_schema: { version: 1, fields: [...MAPPING_FIELDS], field_shape: { path: "JSON pointer", scope: "current", transform: [...MAPPING_TRANSFORMS] } },
  mapping_scopes: ["current"],
  mapping_versions: [1],
  related_span_layouts: {
    trace_provider_a: "spans of project_logs sharing root_span_id (BTQL, spans shape, oldest first, cursor pages)",
    trace_provider_b: "observations of the trace, its root observation included (v2/observations by traceId; legacy: child observations only)",
    trace_provider_c: "runs of the trace, its root run included (v2/runs/query by trace_id, bounded to a day from the trace's start, oldest first)",
  },
  related_span_correlations: { trace_provider_a: "root_span_id", trace_provider_b: "traceId", trace_provider_c: "trace_id" },
  related_span_limits: {
    trace_provider_a: { spans: BRAINTRUST_SPAN_LIMIT },
    trace_provider_b: { spans: OBSERVATION_PAGE * MAX_OBSERVATION_PAGES },
    trace_provider_c: { spans: SPAN_PAGE * MAX_SPAN_PAGES },
    example_bytes: 65_536,
    per_trace: {
      spans: SUPPORTING_SPAN_LIMIT,
      bytes: SUPPORTING_SPAN_BYTES,
      beyond: "left out in start order; /supporting_spans/truncated is true and the status counts the trace under spans_bounded",
    },
  },
  related_span_fetch: {
    purpose: "context",
    read_for: "sample examples (mapping evidence, each within example_bytes: raw spans dropped first) and every eligible trace of backfill and live collection",
    read_when: "the trace passed the stream's filters and its root is not excluded by the active mapping, or a rule reads /supporting_spans",
    outside_candidate_filters: "only as context for an eligible interaction",
    mapped_at: "/supporting_spans: llm_calls, conversation, last_user_message, final_answer, tools, retrievals, spans_read, truncated",
    imported_as: "tool and retrieval spans: the agent turn's tools_used; the learnings the references pointer names: its retrieved_learnings",
  },
  sibling_joins: { within: "trace", joined_by: "related_span_correlations", read_for: "sample examples and collection", exposed_at: "/supporting_spans" },
  sampling: {
    max_records: 50,
    expiry_seconds: 86_400,
    time_buckets: { trace_provider_a: 7 },
    bounded_pages: ["trace_provider_b", "trace_provider_c"],
    example_max_bytes: 65_536,
  },
  field_guidance: FIELD_GUIDANCE,
  identity_checks: { user_required: true, session_required: false },
  mapping_aware_reads: { fields_read: "only those the active mapping names" },
  automatic_read_retries: { attempts: PROVIDER_READ_ATTEMPTS, honours: "429 Retry-After", max_wait_seconds: PROVIDER_MAX_RETRY_WAIT_SECONDS },
  shared_connection_cooldown: {
    on: "a provider rate limit past our retries",
    answer: "503 provider_unavailable with the retry_at the provider named",
    collection: "backfill and live reads of the connection wait until the provider's retry_at (status cooldown_until)",
  },
  historical_read_windows: { start: "inclusive", end: "exclusive", bounds: "Unix seconds" },
  backfill_limit: { initial_message_units: INITIAL_BACKFILL_UNITS, extension: true, null_means: "all" },
} satisfies Partial<SetupContext>;

/**
 * The setup contract for the request's project under `apiBasePath`. The connection it names is the
 * one asked for (404 when unknown), else the project's sole connection, else none.
 */
export async function setupContext(
  deps: CoreDeps,
  scope: Scope,
  input: { connection_id?: string | undefined; apiBasePath: string; binding: "api_key_project" | "url_project" },
): Promise<SetupContext> {
  const now = deps.now();
  const connections = await dataSources.listConnections(deps.db, scope, now);
  const connection =
    input.connection_id === undefined
      ? connections.length === 1
        ? connections[0]
        : undefined
      : connections.find((c) => c.connection_id === input.connection_id);
  if (input.connection_id !== undefined && !connection) throw AppError.notFound(`connection '${input.connection_id}'`);
  const stream = connection && (await dataSources.findStreamOfConnection(deps.db, scope, connection.connection_id));
  return {
    ...RULES,
    api_base_path: input.apiBasePath,
    destination_binding: { kind: input.binding, project_id: scope.projectId },
    project_id: scope.projectId,
    connection_limit: { limit: CONNECTION_LIMIT, in_use: connections.length, draft_lifetime_seconds: DRAFT_CONNECTION_SECONDS },
    connection_id: connection?.connection_id ?? null,
    stream_id: stream?.stream_id ?? null,
    review_path: connection ? `${input.apiBasePath}/connections/${connection.connection_id}` : null,
  };
}
