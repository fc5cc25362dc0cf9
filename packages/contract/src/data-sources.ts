import { z } from "zod";
import { UnixSeconds } from "./common.ts";
import { MAPPING_FIELDS, MAPPING_TRANSFORMS, MappingDefinition } from "./mapping-definition.ts";

export * from "./mapping-definition.ts";

/** The contract's provider values (Braintrust, Langfuse, LangSmith) and the regions each serves. */
export const DATA_SOURCE_PROVIDERS = ["trace_provider_a", "trace_provider_b", "trace_provider_c"] as const;
export type DataSourceProvider = (typeof DATA_SOURCE_PROVIDERS)[number];
export const PROVIDER_REGIONS: Record<DataSourceProvider, readonly string[]> = {
  trace_provider_a: ["us"],
  trace_provider_b: ["us", "eu", "jp", "hipaa-us"],
  trace_provider_c: ["us", "eu"],
};

/** Connections a project may hold, setup drafts that have not expired included. */
export const CONNECTION_LIMIT = 10;

export const FILTER_OPS = ["eq", "in", "exists"] as const;
export const FILTER_PATHS = ["metadata.*", "span_attributes.name", "tags"] as const;
export const MAX_FILTERS = 10;
export const MAX_FILTER_VALUE_CHARS = 512;
export const MAX_TAG_VALUE_CHARS = 160;
export const MAX_IN_VALUES = 20;

const METADATA_PATH = /^metadata(\.[^.\s]+)+$/;
const MAX_FILTER_PATH_CHARS = 256;

/**
 * `{path, op, values}` (Filter operators): eq takes exactly one value, in 1 to 20, exists none.
 * Values are strings kept literally (a number or boolean is compared by its string form, so it is
 * sent as one); each 1 to 512 characters, 160 on `tags`.
 */
export const TrafficFilter = z
  .object({
    path: z.string().max(MAX_FILTER_PATH_CHARS).describe("metadata.<key>, span_attributes.name or tags"),
    op: z.enum(FILTER_OPS),
    values: z.array(z.string()).default([]),
  })
  .strict()
  .superRefine((filter, ctx) => {
    if (!(METADATA_PATH.test(filter.path) || filter.path === "span_attributes.name" || filter.path === "tags")) {
      ctx.addIssue({ code: "custom", path: ["path"], message: `must be metadata.<key>, span_attributes.name or tags, not '${filter.path}'` });
    }
    const count = filter.values.length;
    if (filter.op === "eq" && count !== 1) ctx.addIssue({ code: "custom", path: ["values"], message: `eq takes exactly one value, not ${count}` });
    if (filter.op === "in" && (count < 1 || count > MAX_IN_VALUES)) {
      ctx.addIssue({ code: "custom", path: ["values"], message: `in takes 1 to ${MAX_IN_VALUES} values, not ${count}` });
    }
    if (filter.op === "exists" && count !== 0)
      ctx.addIssue({ code: "custom", path: ["values"], message: "exists takes no values: send an empty list or omit it" });
    const max = filter.path === "tags" ? MAX_TAG_VALUE_CHARS : MAX_FILTER_VALUE_CHARS;
    filter.values.forEach((value, index) => {
      if (value.length < 1 || value.length > max) {
        ctx.addIssue({
          code: "custom",
          path: ["values", index],
          message: `must be 1 to ${max} characters${filter.path === "tags" ? " on tags" : ""}, not ${value.length}`,
        });
      }
    });
  });
export type TrafficFilter = z.output<typeof TrafficFilter>;

export const TrafficFilters = z.array(TrafficFilter).max(MAX_FILTERS, `at most ${MAX_FILTERS} filters`);

const Revision = z.number().int().min(1).describe("The revision last read: a stale one answers 409, re-read and retry");
const CredentialText = z.string().trim().min(1).max(4096);
const ConnectionId = z.string().min(1).max(64);

/**
 * ConnectionInput. The provider's public host of the region is the only one a connection reaches:
 * a field naming another (a private endpoint) is refused with every other unknown field.
 */
export const ConnectionInput = z
  .object({
    name: z.string().trim().min(1).max(128),
    provider: z.enum(DATA_SOURCE_PROVIDERS).default("trace_provider_a"),
    region: z.string().default("us"),
    api_key: CredentialText.describe("The provider's API key (trace_provider_b: the secret key); never returned"),
    public_key: CredentialText.optional().describe("trace_provider_b only: its public key"),
    workspace_id: z.string().trim().min(1).max(256).optional().describe("trace_provider_c only: the workspace the key acts in"),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (!PROVIDER_REGIONS[input.provider].includes(input.region)) {
      ctx.addIssue({
        code: "custom",
        path: ["region"],
        message: `${input.provider} serves regions ${PROVIDER_REGIONS[input.provider].join(", ")}, not '${input.region}'`,
      });
    }
    credentialRules(input.provider, input, ctx);
  });

/** Which credential fields a provider takes (connection-provider table). */
export function credentialRules(
  provider: DataSourceProvider,
  input: { public_key?: string | undefined; workspace_id?: string | undefined },
  ctx: { addIssue(issue: { code: "custom"; path: string[]; message: string }): void },
): void {
  if (provider === "trace_provider_b" && input.public_key === undefined)
    ctx.addIssue({ code: "custom", path: ["public_key"], message: "trace_provider_b needs its public_key" });
  if (provider !== "trace_provider_b" && input.public_key !== undefined)
    ctx.addIssue({ code: "custom", path: ["public_key"], message: `${provider} takes no public_key` });
  if (provider !== "trace_provider_c" && input.workspace_id !== undefined)
    ctx.addIssue({ code: "custom", path: ["workspace_id"], message: `${provider} takes no workspace_id` });
}

/** RotationInput: the connection revision read, and the replacement credential fields. */
export const RotationInput = z
  .object({
    revision: Revision,
    api_key: CredentialText,
    public_key: CredentialText.optional(),
    workspace_id: z.string().trim().min(1).max(256).optional(),
  })
  .strict();

/** RevisionInput of DELETE: the connection revision (lifecycle_revision applies to an activated collection). */
export const DeleteConnectionInput = z.object({ revision: Revision, lifecycle_revision: z.number().int().min(1).optional() }).strict();

/** StreamInput: the connection revision read, the external project and its traffic filters. */
export const StreamInput = z
  .object({
    revision: Revision,
    external_project_id: z.string().trim().min(1).max(256),
    filters: TrafficFilters.default([]),
  })
  .strict();

export const ConnectionPath = z.object({ connection_id: ConnectionId }).strict();
export const NoDataSourceInput = z.object({}).strict();
export const SetupContextQuery = z.object({ connection_id: ConnectionId.optional() }).strict();

export const FILTER_EXECUTIONS = ["before_download", "partial", "after_download"] as const;

export const Connection = z.object({
  connection_id: z.string(),
  name: z.string(),
  provider: z.enum(DATA_SOURCE_PROVIDERS),
  region: z.string(),
  workspace_id: z.string().nullable().describe("Resolved from discovery when the stream is selected (trace_provider_c: the one given)"),
  stream_id: z.string().nullable(),
  external_project_id: z.string().nullable(),
  revision: z.number().int().describe("Connection revision: advanced by credential rotation and stream selection"),
  status: z.enum(["draft", "activated"]).describe("A setup draft until activation"),
  draft_expires_at: UnixSeconds.nullable().describe("When an unactivated draft stops holding a connection slot and is removed"),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});

export const Stream = z.object({
  stream_id: z.string(),
  connection_id: z.string(),
  external_project_id: z.string(),
  external_project_name: z.string(),
  workspace_id: z.string().nullable(),
  filters: z.array(z.object({ path: z.string(), op: z.enum(FILTER_OPS), values: z.array(z.string()) })),
  filter_execution: z
    .enum(FILTER_EXECUTIONS)
    .describe("Where these filters run: trace_provider_a before pagination (partial when some stay local), others after download"),
  revision: z.number().int().describe("Stream revision: sampling, history draft and activation name it"),
  status: z.literal("draft").describe("The setup draft marker"),
  history: z.boolean().describe("Whether activation imports past traffic (history draft)"),
  history_start: UnixSeconds.nullable(),
  history_end: UnixSeconds.nullable(),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});

/** SampleWindow: timezone-aware ISO 8601 start and end. */
const ZonedDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i, "must be an ISO 8601 date-time with a time zone (Z or +hh:mm)")
  .refine((text) => !Number.isNaN(Date.parse(text)), "is not a valid date-time");

export const SampleInput = z
  .object({
    revision: Revision.describe("The stream revision last read: a stale one answers 409, re-read and retry"),
    sample_window: z
      .object({ start: ZonedDateTime, end: ZonedDateTime })
      .strict()
      .refine((window) => Date.parse(window.end) > Date.parse(window.start), { message: "end must be after start", path: ["end"] })
      .optional()
      .describe("Unset: the last seven days"),
  })
  .strict();

export const SAMPLE_STATUSES = ["in_progress", "complete", "failed", "expired"] as const;

const SampleFields = {
  sample_id: z.string(),
  stream_id: z.string(),
  stream_revision: z.number().int(),
  status: z.enum(SAMPLE_STATUSES),
  sample_window: z.object({ start: z.string(), end: z.string() }),
  record_count: z.number().int(),
  truncated: z.boolean().describe("More traffic matched than was retained, or an example was cut to 64 KB"),
  coverage: z.record(z.string(), z.unknown()).nullable(),
  buckets: z.array(z.object({ start: z.string(), end: z.string(), records: z.number().int() })),
  code: z.string().nullable().describe("Why a failed sample failed"),
  retry_at: UnixSeconds.nullable().describe("When the provider said to try again"),
  created_at: UnixSeconds,
  expires_at: UnixSeconds,
  completed_at: UnixSeconds.nullable(),
};

export const SampleSummary = z.object(SampleFields);
export const Sample = z.object({
  ...SampleFields,
  records: z.array(
    z.object({
      trace_id: z.string(),
      started_at: UnixSeconds,
      trace: z.unknown().describe("The provider's root record; absent when over 64 KB"),
      spans: z.array(z.unknown()).describe("Related spans of the trace; empty when they would take the example over 64 KB"),
      truncated: z.boolean(),
    }),
  ),
});
export const SamplePath = z.object({ sample_id: z.string().min(1).max(64) }).strict();

export const ProviderCapability = z.object({
  provider: z.enum(DATA_SOURCE_PROVIDERS),
  regions: z.array(z.string()),
  credential_fields: z.object({ required: z.array(z.string()), optional: z.array(z.string()) }),
  filter_execution: z.enum(FILTER_EXECUTIONS).describe("Where supported filters run"),
  live_traffic_filters: z.boolean().describe("Whether traffic filters can be edited after activation (trace_provider_a only)"),
});

export const DataSourceCollection = z.object({
  connections: z.array(Connection),
  streams: z.array(Stream),
  samples: z.array(SampleSummary).describe("The project's samples, newest first, without their records"),
  capabilities: z.object({
    providers: z.array(ProviderCapability),
    connection_limit: z.number().int(),
    connections_in_use: z.number().int().describe("Connections holding a slot, unexpired setup drafts included"),
    filter_paths: z.array(z.string()),
    filter_ops: z.array(z.enum(FILTER_OPS)),
  }),
});

export const ExternalProjects = z.object({
  connection_id: z.string(),
  provider: z.enum(DATA_SOURCE_PROVIDERS),
  region: z.string(),
  projects: z.array(z.object({ id: z.string(), name: z.string(), workspace_id: z.string().nullable() })),
});

export const DeletedConnection = z.object({ deleted: z.literal(true) });

export const StreamPath = z.object({ stream_id: z.string().min(1).max(64) }).strict();

/** The history draft: import past traffic or not, and its range (Unix seconds, start-inclusive, end-exclusive). */
export const HistoryDraftInput = z
  .object({
    revision: Revision.describe("The stream revision last read: a stale one answers 409, re-read and retry"),
    history: z.boolean().default(true),
    history_start: z.number().int().positive().optional().describe("Unix seconds, inclusive"),
    history_end: z.number().int().positive().optional().describe("Unix seconds, exclusive; not in the future"),
  })
  .strict()
  .superRefine((draft, ctx) => {
    if (!draft.history) {
      for (const bound of ["history_start", "history_end"] as const) {
        if (draft[bound] !== undefined) ctx.addIssue({ code: "custom", path: [bound], message: "takes no bounds when history is false" });
      }
    }
    if (draft.history_start !== undefined && draft.history_end !== undefined && draft.history_end <= draft.history_start) {
      ctx.addIssue({ code: "custom", path: ["history_end"], message: "must be after history_start" });
    }
  });

export const HistoryDraft = z.object({
  stream_id: z.string(),
  history: z.boolean(),
  history_start: UnixSeconds.nullable(),
  history_end: UnixSeconds.nullable(),
  revision: z.number().int().describe("The stream revision after the save"),
});

/** A stream's mapping draft: its definition (null before the first save), revision and validated_revision. */
export const MappingDocument = z.object({
  stream_id: z.string(),
  draft: MappingDefinition.nullable(),
  revision: z.number().int().describe("Draft revision: 0 before the first save; expected_revision of save, preview and validate"),
  validated_revision: z.number().int().nullable().describe("The revision validation accepted; cleared by a save"),
  mapping_revision: z.number().int().nullable().describe("The active mapping's revision; null until activation"),
  updated_at: UnixSeconds.nullable(),
});

export const SaveMappingInput = z
  .object({
    expected_revision: z.number().int().min(0).describe("The draft revision read (0 for a new draft): a stale one answers 409"),
    definition: MappingDefinition,
  })
  .strict();

export type Sample = z.output<typeof Sample>;
const SampleId = z.string().min(1).max(64);
const Digest = z.string().regex(/^[0-9a-f]{64}$/, "must be the sample_digest a preview returned (64 hex digits)");

export const PreviewInput = z
  .object({
    sample_id: SampleId,
    expected_revision: z.number().int().min(0).describe("The draft revision read: a stale one answers 409"),
    definition: MappingDefinition.optional().describe("An unsaved proposal to preview; unset: the saved draft"),
  })
  .strict();

const RecordStatus = z.enum(["ready", "held", "excluded"]);

export const PreviewResult = z.object({
  records: z.array(
    z.object({
      trace_id: z.string(),
      status: RecordStatus,
      rules: z.array(z.string()).describe("The rules that matched"),
      reasons: z.array(z.string()).describe("Why a held record waits"),
      interaction: z
        .object({
          user_id: z.string(),
          session_id: z.string().nullable(),
          input: z.string().nullable(),
          output: z.string().nullable(),
          agent_version: z.string().nullable(),
          source: z.string().nullable(),
          created_at: UnixSeconds.nullable(),
        })
        .nullable(),
    }),
  ),
  ready: z.number().int(),
  held: z.number().int(),
  excluded: z.number().int(),
  sourceRecords: z.number().int().describe("Records of the sample previewed"),
  messages: z.number().int().describe("Message units the ready records would publish (an input and an output each count)"),
  sample_digest: z.string().describe("Names this sample's evidence: validate takes it back"),
  mapping_revision: z.number().int().nullable().describe("The draft revision previewed; null for an unsaved proposal"),
  mapping_digest: z.string(),
  policy_digest: z.string().describe("Digest of the engine's limits and transforms"),
  blockers: z.array(z.string()).describe("What validation would refuse"),
  rule_coverage: z.record(z.string(), z.object({ matched: z.number().int(), ready: z.number().int(), held: z.number().int() })),
  field_guidance: z.record(z.string(), z.string()),
  advisory: z.literal(true).describe("Counts apply to the sample only: nothing is published"),
});

/** Validation of the saved draft: a definition is refused (even an identical one). */
export const ValidateInput = z
  .object({
    sample_id: SampleId,
    expected_revision: z.number().int().min(1).describe("The saved draft revision: a stale one answers 409"),
    sample_digest: Digest,
  })
  .strict();

export const UpgradeTextInput = z.object({ expected_revision: z.number().int().min(1) }).strict();

export const InitializeInput = z
  .object({
    sample_id: SampleId,
    expected_revision: z.number().int().min(0).default(0).describe("0 keeps a draft already saved; the current revision regenerates it"),
  })
  .strict();

export const SuggestionsInput = z
  .object({
    sample_id: SampleId,
    expected_revision: z.number().int().min(0),
    sample_digest: Digest,
    consent: z.literal(true, { error: "must be true: the sample's field names and types are sent to the configured model" }),
  })
  .strict();

export const SuggestionModel = z.object({
  available: z.boolean(),
  model: z.string().nullable(),
  data_sent: z.string(),
  usage: z.record(z.string(), z.string()),
});

export const Suggestions = z.object({
  candidates: z.array(z.object({ field: z.enum(MAPPING_FIELDS), path: z.string(), transform: z.enum(MAPPING_TRANSFORMS).nullable(), reason: z.string() })),
  missing: z.array(z.enum(MAPPING_FIELDS)),
  revision: z.number().int().describe("The draft revision the suggestions were made for"),
  sample_id: z.string(),
  sample_digest: z.string(),
  model: z.string(),
  prompt_version: z.string(),
  measured_coverage: z.record(z.string(), z.number()).describe("Per `field:pointer`, the share of sampled records where the pointer holds a value"),
  automatic_application: z.literal(false),
});

export type PreviewResult = z.output<typeof PreviewResult>;
export type Connection = z.output<typeof Connection>;
export type MappingDocument = z.output<typeof MappingDocument>;
export type Stream = z.output<typeof Stream>;
export type ExternalProjects = z.output<typeof ExternalProjects>;

const Descriptor = z.record(z.string(), z.unknown());

/** The non-secret setup contract: what a setup client needs to drive connection, stream and mapping setup. */
export const SetupContext = z.object({
  setup_version: z.number().int(),
  api_base_path: z.string().describe("The prefix this context was read under"),
  destination_binding: z.object({ kind: z.enum(["api_key_project", "url_project"]), project_id: z.string() }),
  project_id: z.string(),
  providers: z.array(ProviderCapability),
  provider_regions: z.record(z.string(), z.array(z.string())),
  connection_limit: z.object({ limit: z.number().int(), in_use: z.number().int(), draft_lifetime_seconds: z.number().int() }),
  connection_id: z.string().nullable().describe("The connection asked for, or the project's sole connection; null otherwise"),
  stream_id: z.string().nullable(),
  review_path: z.string().nullable().describe("Where the selected connection is read back for review (its id is the dashboard's source parameter)"),
  activation: Descriptor,
  traffic_filter_pushdown: z.record(z.string(), z.string()),
  provider_filter_execution: Descriptor,
  traffic_filter_contract: Descriptor,
  mapping_schema: Descriptor,
  mapping_scopes: z.array(z.string()),
  mapping_versions: z.array(z.number().int()),
  related_span_layouts: z.record(z.string(), z.string()),
  related_span_correlations: z.record(z.string(), z.string()),
  related_span_limits: Descriptor,
  related_span_fetch: Descriptor,
  sibling_joins: Descriptor,
  sampling: Descriptor,
  field_guidance: z.record(z.string(), z.string()),
  identity_checks: Descriptor,
  mapping_aware_reads: Descriptor,
  automatic_read_retries: Descriptor,
  shared_connection_cooldown: Descriptor,
  historical_read_windows: Descriptor,
  backfill_limit: Descriptor,
});
export type SetupContext = z.output<typeof SetupContext>;
