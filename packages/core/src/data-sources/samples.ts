import { randomUUID } from "node:crypto";
import { AppError, type Sample } from "@als/contract";
import { dataSourceSamples, dataSources, type SampleRecord, type Scope } from "@als/db";
import type { CoreDeps } from "../deps.ts";
import type { RecordAnswer } from "../idempotency/write-once.ts";
import { isoTime } from "../iso-time.ts";
import { staleRevision } from "./stale-revision.ts";
import { liveStream } from "./stream-drafts.ts";

/** Records a sample retains (the contract's limit). */
export const SAMPLE_MAX_RECORDS = 50;
/** A sample's evidence expires this long after it was asked for. */
export const SAMPLE_TTL_SECONDS = 86_400;
/** The window sampled when none is given. */
export const DEFAULT_SAMPLE_WINDOW_SECONDS = 7 * 86_400;

/** The wire form: `expired` once past expires_at, its records withheld. */
export function toSample(record: SampleRecord, now: number): Sample {
  const expired = now >= record.expires_at;
  const records = expired ? [] : (record.records as Sample["records"]);
  return {
    sample_id: record.sample_id,
    stream_id: record.stream_id,
    stream_revision: record.stream_revision,
    status: expired ? "expired" : record.status,
    sample_window: { start: isoTime(record.window_start), end: isoTime(record.window_end) },
    record_count: records.length,
    truncated: record.truncated,
    coverage: record.coverage,
    buckets: expired ? [] : (record.buckets as Sample["buckets"]),
    code: record.code,
    retry_at: record.retry_at,
    created_at: record.created_at,
    expires_at: record.expires_at,
    completed_at: record.completed_at,
    records,
  };
}

/**
 * Asks for a sample of the stream's traffic (rule 4) at the stream revision read: stored in
 * progress, then read from the provider by a durable step (runSampleStep). 202 with the sample.
 */
export async function requestSample(
  deps: CoreDeps,
  scope: Scope,
  input: { stream_id: string; revision: number; sample_window?: { start: string; end: string } | undefined },
  /** An Idempotency-Key's (see writeOnce): the accepted sample is the answer kept with the key. */
  record?: RecordAnswer<Sample>,
): Promise<Sample> {
  const stream = await liveStream(deps, scope, input.stream_id);
  if (stream.revision !== input.revision) throw staleRevision("stream", input.stream_id, stream.revision, input.revision);
  const now = deps.now();
  const window = input.sample_window
    ? { start: Math.floor(Date.parse(input.sample_window.start) / 1000), end: Math.floor(Date.parse(input.sample_window.end) / 1000) }
    : { start: now - DEFAULT_SAMPLE_WINDOW_SECONDS, end: now };
  if (window.end <= window.start) {
    throw AppError.validation([{ loc: ["body", "sample_window", "end"], msg: "must be at least a second after start", type: "value_error" }]);
  }
  const created = await deps.db.transaction(async (tx) => {
    const inserted = await dataSourceSamples.insertSample(tx, scope, {
      sample_id: `dsm_${randomUUID()}`,
      stream_id: stream.stream_id,
      stream_revision: stream.revision,
      window_start: window.start,
      window_end: window.end,
      created_at: now,
      expires_at: now + SAMPLE_TTL_SECONDS,
    });
    await record?.(tx, toSample(inserted, now));
    return inserted;
  });
  await deps.orchestrator?.schedule("sample", scope, created.sample_id);
  return toSample(created, now);
}

export async function getSample(deps: CoreDeps, scope: Scope, sampleId: string): Promise<Sample> {
  const found = await dataSourceSamples.findSample(deps.db, scope, sampleId);
  // A sample of a connection that is gone went with it; one of an expired draft is gone too.
  if (!found || !(await dataSources.findStream(deps.db, scope, found.stream_id, deps.now()))) throw AppError.notFound(`sample '${sampleId}'`);
  return toSample(found, deps.now());
}

/** Summaries for the collection list: no records. */
export async function listSampleSummaries(deps: CoreDeps, scope: Scope) {
  const now = deps.now();
  return (await dataSourceSamples.listSampleSummaries(deps.db, scope)).map((summary) => {
    const { records: _records, ...rest } = toSample({ ...summary, records: [] }, now);
    return rest;
  });
}
