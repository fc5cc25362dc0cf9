import type { DataSourceProvider } from "@als/contract";
import { dataSourceSamples, dataSources, type SampleRecord, type Scope } from "@als/db";
import {
  type FilterExecution,
  type ProviderName,
  type ProviderTrace,
  rootSpanIdOf,
  supportingContextOf,
  type TraceProvider,
  TraceProviderError,
  withSupportingSpans,
} from "@als/sources";
import type { CoreDeps } from "../deps.ts";
import type { StepOutcome } from "../durable/step-outcome.ts";
import { isoTime } from "../iso-time.ts";
import { providerOfConnection } from "./provider-access.ts";
import { SAMPLE_MAX_RECORDS } from "./samples.ts";

/** Long enough for every page and span read of a sample, retries included. */
export const SAMPLE_LEASE_SECONDS = 300;
/** Attempts after unexpected failures (storage, a provider answering nonsense) before the sample fails. */
const MAX_ATTEMPTS = 3;
const RETRY_SECONDS = 5;
/** trace_provider_a spreads its sample over this many equal time buckets. */
export const SAMPLE_TIME_BUCKETS = 7;
/** The others read at most this many pages of PAGE_SIZE, newest filters applied after download. */
export const SAMPLE_MAX_PAGES = 5;
const PAGE_SIZE = 20;
/** Bytes of one example (its trace and spans as JSON): larger, its spans are dropped, then its trace. */
export const SAMPLE_EXAMPLE_BYTES = 64 * 1024;

interface Example {
  trace_id: string;
  started_at: number;
  trace: unknown;
  spans: unknown[];
  truncated: boolean;
}

/**
 * One attempt at a sample: takes it under its lease, reads the stream's traffic in the sample's
 * window with its filters, and stores up to SAMPLE_MAX_RECORDS examples with their related spans.
 * A provider that refuses the credential or keeps rate-limiting fails the sample with a code (and
 * the provider's retry_at); an unexpected failure is retried a few times. Safe to repeat: nothing
 * is stored before the one write that completes it.
 */
export async function runSampleStep(deps: CoreDeps, scope: Scope, sampleId: string, leaseToken: string = crypto.randomUUID()): Promise<StepOutcome> {
  const now = deps.now();
  const sample = await dataSourceSamples.claimSample(deps.db, scope, sampleId, leaseToken, now, SAMPLE_LEASE_SECONDS);
  if (!sample) return outcomeOf(await dataSourceSamples.findSample(deps.db, scope, sampleId));
  try {
    const stream = await dataSources.findStream(deps.db, scope, sample.stream_id, now);
    const connection = stream && (await dataSources.findConnection(deps.db, scope, stream.connection_id, now));
    if (!stream || !connection) {
      await dataSourceSamples.finishSample(deps.db, scope, sampleId, leaseToken, { status: "failed", code: "stream_deleted", retry_at: null, at: deps.now() });
      return { next: "done" };
    }
    const provider = await providerOfConnection(deps, connection);
    const read =
      connection.provider === ("trace_provider_a" satisfies DataSourceProvider)
        ? await readByBuckets(provider, sample, stream.external_project_id, stream.filters, connection.provider as ProviderName)
        : await readByPages(provider, sample, stream.external_project_id, stream.filters, connection.provider as ProviderName);
    await dataSourceSamples.finishSample(deps.db, scope, sampleId, leaseToken, { status: "complete", ...read, at: deps.now() });
    return { next: "done" };
  } catch (error) {
    if (error instanceof TraceProviderError && error.kind !== "unavailable") {
      const code = {
        credential_refused: "credential_refused",
        rate_limited: "provider_rate_limited",
        not_found: "provider_not_found",
        rejected: "provider_rejected",
      }[error.kind];
      await dataSourceSamples.finishSample(deps.db, scope, sampleId, leaseToken, { status: "failed", code, retry_at: error.retryAt, at: deps.now() });
      return { next: "done" };
    }
    const unexpected = error instanceof Error ? error.message : String(error);
    if (sample.attempts >= MAX_ATTEMPTS) {
      const code = error instanceof TraceProviderError ? "provider_unavailable" : "internal_error";
      await dataSourceSamples.finishSample(deps.db, scope, sampleId, leaseToken, { status: "failed", code, retry_at: null, at: deps.now() });
      return { next: "done", unexpected };
    }
    const at = deps.now() + RETRY_SECONDS * sample.attempts;
    await dataSourceSamples.retrySample(deps.db, scope, sampleId, leaseToken, at);
    return { next: "retry", at, unexpected };
  }
}

/** The outcome of an attempt that could not claim the sample: done, or held by another step (or waiting for its retry). */
function outcomeOf(sample: SampleRecord | undefined): StepOutcome {
  return !sample || sample.status !== "in_progress" ? { next: "done" } : { next: "busy" };
}

type Filters = Parameters<TraceProvider["pageTraces"]>[0]["filters"];

/** trace_provider_a: one filtered page per equal time bucket, so a sample spans the window instead of its busiest hour. */
async function readByBuckets(provider: TraceProvider, sample: SampleRecord, projectId: string, filters: Filters, name: ProviderName) {
  const span = sample.window_end - sample.window_start;
  const count = Math.min(SAMPLE_TIME_BUCKETS, span);
  const perBucket = Math.ceil(SAMPLE_MAX_RECORDS / count);
  const examples: Example[] = [];
  const buckets: { start: string; end: string; records: number }[] = [];
  let truncated = false;
  let filterExecution = "before_download";
  for (let index = 0; index < count; index++) {
    const start = sample.window_start + Math.floor((span * index) / count);
    const end = sample.window_start + Math.floor((span * (index + 1)) / count);
    const page = await provider.pageTraces({ external_project_id: projectId, start, end, filters, cursor: null, limit: perBucket });
    filterExecution = page.filter_execution;
    const room = SAMPLE_MAX_RECORDS - examples.length;
    const kept = page.traces.slice(0, room);
    if (page.next_cursor !== null || page.traces.length > room) truncated = true;
    for (const trace of kept) examples.push(await exampleOf(provider, name, projectId, trace));
    buckets.push({ start: isoTime(start), end: isoTime(end), records: kept.length });
  }
  return finished(examples, truncated, buckets, { traces_read: examples.length, buckets: buckets.length, filter_execution: filterExecution }, sample);
}

/**
 * The others: at most SAMPLE_MAX_PAGES pages of the window, in the provider's order (Langfuse's is
 * newest first); the examples are kept oldest first whatever it was.
 */
async function readByPages(provider: TraceProvider, sample: SampleRecord, projectId: string, filters: Filters, name: ProviderName) {
  const examples: Example[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let truncated = false;
  let filterExecution: FilterExecution = "after_download";
  do {
    const page = await provider.pageTraces({
      external_project_id: projectId,
      start: sample.window_start,
      end: sample.window_end,
      filters,
      cursor,
      limit: PAGE_SIZE,
    });
    pages++;
    filterExecution = page.filter_execution;
    const room = SAMPLE_MAX_RECORDS - examples.length;
    for (const trace of page.traces.slice(0, room)) examples.push(await exampleOf(provider, name, projectId, trace));
    cursor = page.next_cursor;
    if (page.traces.length > room) truncated = true;
  } while (cursor !== null && pages < SAMPLE_MAX_PAGES && examples.length < SAMPLE_MAX_RECORDS);
  if (cursor !== null) truncated = true;
  examples.sort((a, b) => a.started_at - b.started_at);
  return finished(examples, truncated, [], { traces_read: examples.length, pages_read: pages, filter_execution: filterExecution }, sample);
}

function finished(examples: Example[], truncated: boolean, buckets: unknown[], coverage: Record<string, unknown>, sample: SampleRecord) {
  return {
    records: examples,
    truncated: truncated || examples.some((example) => example.truncated),
    buckets,
    coverage: { ...coverage, records: examples.length, window: { start: isoTime(sample.window_start), end: isoTime(sample.window_end) } },
  };
}

/**
 * A trace with its related spans, within SAMPLE_EXAMPLE_BYTES. Its `trace` is what a collection's
 * mapping reads: the root record with its supporting context at `/supporting_spans`. Over the bound,
 * the raw spans go first, then the supporting context, then the trace itself.
 */
async function exampleOf(provider: TraceProvider, name: ProviderName, projectId: string, trace: ProviderTrace): Promise<Example> {
  const spans = await provider.relatedSpans(projectId, trace.id, trace.started_at);
  const supported = withSupportingSpans(trace.record, supportingContextOf(name, rootSpanIdOf(trace), spans));
  const whole = { trace_id: trace.id, started_at: trace.started_at, trace: supported, spans, truncated: false };
  if (byteLength(whole) <= SAMPLE_EXAMPLE_BYTES) return whole;
  const withoutSpans = { ...whole, spans: [], truncated: true };
  if (byteLength(withoutSpans) <= SAMPLE_EXAMPLE_BYTES) return withoutSpans;
  const rootOnly = { ...withoutSpans, trace: trace.record };
  if (byteLength(rootOnly) <= SAMPLE_EXAMPLE_BYTES) return rootOnly;
  return { trace_id: trace.id, started_at: trace.started_at, trace: null, spans: [], truncated: true };
}

const byteLength = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
