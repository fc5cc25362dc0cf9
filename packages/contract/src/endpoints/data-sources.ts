import { z } from "zod";
import {
  ActivateInput,
  CollectionStatus,
  Evidence,
  ExtendBackfillInput,
  HeldPage,
  HeldQuery,
  MappingActivationInput,
  OperationInput,
  RetryAccepted,
  RetryApplyInput,
  RetryInput,
  RetryPreview,
  TrafficFiltersInput,
} from "../data-source-collections.ts";
import {
  Connection,
  ConnectionInput,
  ConnectionPath,
  DataSourceCollection,
  DeleteConnectionInput,
  DeletedConnection,
  ExternalProjects,
  HistoryDraft,
  HistoryDraftInput,
  InitializeInput,
  MappingDocument,
  NoDataSourceInput,
  PreviewInput,
  PreviewResult,
  RotationInput,
  Sample,
  SampleInput,
  SamplePath,
  SaveMappingInput,
  SetupContext,
  SetupContextQuery,
  Stream,
  StreamInput,
  StreamPath,
  SuggestionModel,
  Suggestions,
  SuggestionsInput,
  UpgradeTextInput,
  ValidateInput,
} from "../data-sources.ts";
import { defineResource, type EndpointSpec } from "../endpoint.ts";

/**
 * One data-source endpoint with its path under each prefix, both written out (a counter of declared
 * endpoints reads literal paths).
 */
type Action<In extends z.ZodObject = z.ZodObject, Out extends z.ZodType = z.ZodType> = Omit<EndpointSpec<In, Out>, "credentials" | "projectPathParam"> & {
  projectPath: string;
};

/**
 * The data-source endpoints, served under both prefixes of the contract (Data sources; Authentication
 * point 6). Declared once here, then placed under each prefix below.
 */
const ACTIONS = {
  list: {
    method: "GET",
    path: "/api/data-sources",
    projectPath: "/api/projects/:project_id/data-sources",
    summary: "The project's connections, their streams and the service's data-source capabilities",
    input: NoDataSourceInput,
    output: DataSourceCollection,
  },
  setupContext: {
    method: "GET",
    path: "/api/data-sources/setup-context",
    projectPath: "/api/projects/:project_id/data-sources/setup-context",
    summary:
      "The non-secret setup contract: providers, regions, limits, filter and mapping rules, and the selected connection (an explicit connection_id, else the sole one; 404 for an unknown explicit one)",
    input: SetupContextQuery,
    output: SetupContext,
  },
  createConnection: {
    method: "POST",
    path: "/api/data-sources/connections",
    projectPath: "/api/projects/:project_id/data-sources/connections",
    summary:
      "Connect a trace provider account (201). The credential is checked against the provider, sealed at rest and never returned; at most 10 connections per project, unexpired setup drafts included (409)",
    input: ConnectionInput,
    output: Connection,
    successStatus: 201,
    errors: ["conflict", "provider_unavailable"],
  },
  getConnection: {
    method: "GET",
    path: "/api/data-sources/connections/:connection_id",
    projectPath: "/api/projects/:project_id/data-sources/connections/:connection_id",
    summary: "One connection (404 when unknown or another project's)",
    input: ConnectionPath,
    output: Connection,
  },
  discoverProjects: {
    method: "GET",
    path: "/api/data-sources/connections/:connection_id/projects",
    projectPath: "/api/projects/:project_id/data-sources/connections/:connection_id/projects",
    summary: "The external projects the connection's credential reaches (a provider read)",
    input: ConnectionPath,
    output: ExternalProjects,
    errors: ["provider_unavailable"],
  },
  rotateCredential: {
    method: "PUT",
    path: "/api/data-sources/connections/:connection_id/credential",
    projectPath: "/api/projects/:project_id/data-sources/connections/:connection_id/credential",
    summary:
      "Replace the connection's credential: the new one must reach the selected external project (422 naming api_key otherwise); advances the revision (409 on a stale one)",
    input: RotationInput.extend(ConnectionPath.shape),
    output: Connection,
    errors: ["conflict", "provider_unavailable"],
  },
  selectStream: {
    method: "PUT",
    path: "/api/data-sources/connections/:connection_id/stream",
    projectPath: "/api/projects/:project_id/data-sources/connections/:connection_id/stream",
    summary:
      "Select the connection's external project and traffic filters; resolves the workspace from discovery and advances the connection revision (409 on a stale one)",
    input: StreamInput.extend(ConnectionPath.shape),
    output: Stream,
    errors: ["conflict", "provider_unavailable"],
  },
  deleteConnection: {
    method: "DELETE",
    path: "/api/data-sources/connections/:connection_id",
    projectPath: "/api/projects/:project_id/data-sources/connections/:connection_id",
    summary:
      "Delete the connection: its credential, configuration, stream and held records go, an activated collection stops (its lifecycle_revision is required); imported interactions and deduplication receipts stay and provider traces are untouched (409 on a stale revision)",
    input: DeleteConnectionInput.extend(ConnectionPath.shape),
    output: DeletedConnection,
    errors: ["conflict"],
  },
  saveHistoryDraft: {
    method: "PUT",
    path: "/api/data-sources/streams/:stream_id/history-draft",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/history-draft",
    summary:
      "Save whether activation imports past traffic and its range (Unix seconds, start-inclusive, end-exclusive, not in the future); advances the stream revision (409 on a stale one)",
    input: HistoryDraftInput.extend(StreamPath.shape),
    output: HistoryDraft,
    errors: ["conflict"],
  },
  requestSample: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/samples",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/samples",
    summary:
      "Sample the stream's traffic (202): a durable step reads up to 50 records in the window (default the last seven days; trace_provider_a over 7 time buckets, the others over bounded pages), each example at most 64 KB; expires after 24 hours (409 on a stale stream revision)",
    input: SampleInput.extend(StreamPath.shape),
    output: Sample,
    successStatus: 202,
    errors: ["conflict"],
    idempotencyKey: true,
  },
  getSample: {
    method: "GET",
    path: "/api/data-sources/samples/:sample_id",
    projectPath: "/api/projects/:project_id/data-sources/samples/:sample_id",
    summary: "A sample with its retained records: in_progress, complete, failed (code, retry_at) or expired (records withheld)",
    input: SamplePath,
    output: Sample,
  },
  getMapping: {
    method: "GET",
    path: "/api/data-sources/streams/:stream_id/mapping",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/mapping",
    summary: "The stream's mapping draft (null and revision 0 before the first save), its revision and validated_revision",
    input: StreamPath,
    output: MappingDocument,
  },
  saveMapping: {
    method: "PUT",
    path: "/api/data-sources/streams/:stream_id/mapping",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/mapping",
    summary:
      "Save a complete mapping definition as the draft: the revision advances and validation is cleared; an active mapping is not replaced (409 when expected_revision is stale)",
    input: SaveMappingInput.extend(StreamPath.shape),
    output: MappingDocument,
    errors: ["conflict"],
  },
  upgradeMappingText: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/mapping/upgrade-text",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/mapping/upgrade-text",
    summary:
      "Rewrite the saved draft's indexed input/output pointers to their content arrays with first_text_block (a new draft revision); an unchanged draft is a no-op (409 on a stale expected_revision)",
    input: UpgradeTextInput.extend(StreamPath.shape),
    output: MappingDocument,
    errors: ["conflict"],
  },
  preview: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/preview",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/preview",
    summary:
      "What the saved draft, or a proposed definition, makes of a complete sample: each record ready, held or excluded, counts, digests, blockers and rule coverage; publishes nothing (409 on a stale expected_revision)",
    input: PreviewInput.extend(StreamPath.shape),
    output: PreviewResult,
    errors: ["conflict"],
  },
  validateMapping: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/mapping/validate",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/mapping/validate",
    summary:
      "Validate the saved draft (a definition in the request is refused) against the sample its digest names: a ready record needed, no record matching two rules; sets validated_revision (409 on a stale revision or digest)",
    input: ValidateInput.extend(StreamPath.shape),
    output: MappingDocument,
    errors: ["conflict"],
  },
  initializeMapping: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/mapping/initialize",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/mapping/initialize",
    summary:
      "Generate a draft from up to three masked examples of a complete sample (each at most 64 KB) with the configured model; at expected_revision 0 a saved draft is kept, the current revision regenerates it; a model failure saves nothing (503)",
    input: InitializeInput.extend(StreamPath.shape),
    output: MappingDocument,
    errors: ["conflict", "llm_unavailable"],
    timeoutMs: 180_000,
  },
  suggestionModel: {
    method: "GET",
    path: "/api/data-sources/streams/:stream_id/suggestions/model",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/suggestions/model",
    summary: "Whether mapping suggestions are available, the model, what is sent to it and how it is used",
    input: StreamPath,
    output: SuggestionModel,
  },
  suggest: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/suggestions",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/suggestions",
    summary:
      "Candidate pointers per mapping field from the sample's field names and types only (dialogue values withheld), with their measured coverage; nothing is applied (consent must be true; 409 on a stale revision or digest)",
    input: SuggestionsInput.extend(StreamPath.shape),
    output: Suggestions,
    errors: ["conflict", "llm_unavailable"],
    timeoutMs: 180_000,
  },
  activate: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/activate",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/activate",
    summary:
      "Activate the stream (202): its validated mapping starts a collection that backfills the history range (start-inclusive, end-exclusive, 0 < start < end <= now) oldest first within the message-unit budget and follows live traffic; provider, region, external project and activation time are fixed from now on (409 on a stale stream or mapping revision, or when already activated)",
    input: ActivateInput.extend(StreamPath.shape),
    output: CollectionStatus,
    successStatus: 202,
    errors: ["conflict"],
    idempotencyKey: true,
  },
  status: {
    method: "GET",
    path: "/api/data-sources/streams/:stream_id/status",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/status",
    summary:
      "The collection's status: state, stream/lifecycle/mapping revisions, backfill and live progress and counts, held records, last error and evaluation settings (404 before activation)",
    input: StreamPath,
    output: CollectionStatus,
  },
  operate: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/operations",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/operations",
    summary:
      "Pause, resume, poll live traffic now, or stop the collection for good; advances the lifecycle revision (409 on a stale one, or resuming a stopped collection)",
    input: OperationInput.extend(StreamPath.shape),
    output: CollectionStatus,
    errors: ["conflict"],
  },
  extendBackfill: {
    method: "PUT",
    path: "/api/data-sources/streams/:stream_id/backfill-limit",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/backfill-limit",
    summary:
      "Raise the backfill's message-unit budget (null: all of the history); a backfill waiting at its budget continues; advances the lifecycle revision (409 on a stale one)",
    input: ExtendBackfillInput.extend(StreamPath.shape),
    output: CollectionStatus,
    errors: ["conflict"],
  },
  editTrafficFilters: {
    method: "PUT",
    path: "/api/data-sources/streams/:stream_id/traffic-filters",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/traffic-filters",
    summary:
      "Replace the collection's traffic filters for the pages read from now on (trace_provider_a only, 422 otherwise); advances the stream and lifecycle revisions (409 on a stale one)",
    input: TrafficFiltersInput.extend(StreamPath.shape),
    output: CollectionStatus,
    errors: ["conflict"],
  },
  promoteMapping: {
    method: "PUT",
    path: "/api/data-sources/streams/:stream_id/active-mapping",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/active-mapping",
    summary:
      "Promote a validated mapping draft revision to the active mapping for the traces read from now on; advances the lifecycle revision (409 on a stale revision or a draft revision that is not the validated one)",
    input: MappingActivationInput.extend(StreamPath.shape),
    output: CollectionStatus,
    errors: ["conflict"],
  },
  listHeld: {
    method: "GET",
    path: "/api/data-sources/streams/:stream_id/held",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/held",
    summary:
      "The traces the collection could not import (no user, no usable answer, mapping errors, oversized) with their reasons, oldest first, up to 50 a page with next_cursor",
    input: HeldQuery.extend(StreamPath.shape),
    output: HeldPage,
  },
  previewRetry: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/retry-preview",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/retry-preview",
    summary:
      "What a retry would do with held records under the active mapping (import, keep held, discard) and the preview_digest naming it; changes nothing (409 on a stale lifecycle or mapping revision)",
    input: RetryInput.extend(StreamPath.shape),
    output: RetryPreview,
    errors: ["conflict"],
  },
  retry: {
    method: "POST",
    path: "/api/data-sources/streams/:stream_id/retry",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/retry",
    summary:
      "Apply the previewed dispositions (202): records to import are queued for the collection, discarded ones dropped; only with the preview's digest (409 when the records or revisions moved since); advances the lifecycle revision",
    input: RetryApplyInput.extend(StreamPath.shape),
    output: RetryAccepted,
    successStatus: 202,
    errors: ["conflict"],
    idempotencyKey: true,
  },
  evidence: {
    method: "GET",
    path: "/api/data-sources/streams/:stream_id/evidence",
    projectPath: "/api/projects/:project_id/data-sources/streams/:stream_id/evidence",
    summary:
      "Up to 20 recent import receipts of the stream: the trace, the request it created, the user and session, the rule and mapping revision, and learning's status for the request",
    input: StreamPath,
    output: Evidence,
  },
} as const satisfies Record<string, Action>;

type Actions = typeof ACTIONS;
const ProjectIdParam = z.object({ project_id: z.string().min(1).max(255) });

/** `/api/data-sources`: a full-access API key, its bound project the destination. */
export const dataSourcesEndpoints = defineResource(
  "dataSources",
  Object.fromEntries(
    Object.entries(ACTIONS).map(([action, { projectPath: _projectPath, ...spec }]) => [action, { ...spec, credentials: ["api_key"] }]),
  ) as unknown as { [A in keyof Actions]: Omit<Actions[A], "projectPath"> & { credentials: readonly ["api_key"] } },
);

/**
 * `/api/projects/{project_id}/data-sources`: a full-access API key bound to that project or a
 * dashboard session; X-Service-Project must equal the URL's project.
 */
export const projectDataSourcesEndpoints = defineResource(
  "projectDataSources",
  Object.fromEntries(
    Object.entries(ACTIONS).map(([action, { projectPath, ...spec }]) => [
      action,
      {
        ...spec,
        path: projectPath,
        input: spec.input.extend(ProjectIdParam.shape),
        credentials: ["api_key", "login_session"],
        projectPathParam: "project_id",
      },
    ]),
  ) as unknown as {
    [A in keyof Actions]: Omit<Actions[A], "projectPath" | "path" | "input"> & {
      path: string;
      input: z.ZodType<z.output<Actions[A]["input"]> & { project_id: string }, z.input<Actions[A]["input"]> & { project_id: string }>;
      credentials: readonly ["api_key", "login_session"];
      projectPathParam: "project_id";
    };
  },
);
