/** The contract's provider values: Braintrust, Langfuse and LangSmith (../shared/DESIGN.md, External boundaries). */
export const PROVIDERS = ["trace_provider_a", "trace_provider_b", "trace_provider_c"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Where a connection's traffic is read: the provider's region (its public host). */
export interface ProviderLocation {
  provider: ProviderName;
  region: string;
  /** The provider's public API host for that region (an operator override in tests). */
  baseUrl: string;
}

/** What a connection holds to reach its provider; never returned, stored sealed. */
export interface ProviderCredentials {
  api_key: string;
  public_key?: string | undefined;
  workspace_id?: string | undefined;
}

/** One external project a credential reaches. */
export interface ExternalProject {
  id: string;
  name: string;
  /** The provider's workspace (organisation, tenant) holding the project; null where keys are project-bound. */
  workspace_id: string | null;
}

/** A stream filter: `{path, op, values}` of the contract (Filter operators). */
export interface TraceFilter {
  path: string;
  op: "eq" | "in" | "exists";
  values: string[];
}

/** Where a page's filters ran (rule 13): all before pagination, some, or none. */
export type FilterExecution = "before_download" | "partial" | "after_download";

/** One trace of the provider, as read: its root record and what filters look at. */
export interface ProviderTrace {
  id: string;
  /** Unix seconds of the trace's start. */
  started_at: number;
  /** The fields filters look at, whatever the provider calls them. */
  filterable: { metadata: unknown; tags: unknown; span_attributes: { name: unknown } };
  /** The provider's record as it sent it. */
  record: Record<string, unknown>;
}

export interface TracePageRequest {
  external_project_id: string;
  /** Unix seconds: start inclusive, end exclusive (rule 5). */
  start: number;
  end: number;
  filters: TraceFilter[];
  /** Null for the first page; otherwise the `next_cursor` of the page before. */
  cursor: string | null;
  limit: number;
  /** Metadata keys the reader needs whole, where a provider cuts long metadata values (Langfuse). */
  metadata_keys?: string[];
}

export interface TracePage {
  traces: ProviderTrace[];
  next_cursor: string | null;
  filter_execution: FilterExecution;
  /** The provider endpoint that answered the page (where a provider has more than one). */
  endpoint?: string;
  /** Why the page was read from a fallback endpoint, for the stream's status. */
  endpoint_note?: string;
}

/**
 * One trace provider's HTTP API behind the operations the data sources need. Every method
 * authenticates with the connection's credentials; a refused credential, an exhausted rate limit
 * or an unreachable provider is a TraceProviderError.
 */
export interface TraceProvider {
  /** The projects the credential reaches: this is also how a credential is checked. */
  discoverProjects(): Promise<ExternalProject[]>;
  /** A page of root traces started in [start, end) that pass every filter. */
  pageTraces(request: TracePageRequest): Promise<TracePage>;
  /**
   * The spans of one trace (root included) in the provider's order, `maxSpans` at most (unset: the
   * adapter's own bound). `startedAt` (Unix seconds, the trace's start) bounds the read where the
   * provider's query needs a time window.
   */
  relatedSpans(externalProjectId: string, traceId: string, startedAt: number, maxSpans?: number): Promise<Record<string, unknown>[]>;
}
