import type { MappingDefinition } from "@als/contract";
import { type CollectionRecord, dataSourceCollections, dataSourceHeld, dataSourceReceipts, dataSources, type OutcomeCounts, type Scope } from "@als/db";
import {
  mapRecord,
  type ProviderName,
  type ProviderTrace,
  readSupportingSpans,
  type TraceFilter,
  type TraceProvider,
  TraceProviderError,
  withSupportingSpans,
} from "@als/sources";
import type { CoreDeps } from "../../deps.ts";
import { crashAt } from "../../durable/crash-at.ts";
import { LeaseLost } from "../../durable/step-outcome.ts";
import { providerOfConnection } from "../provider-access.ts";
import { LIVE_POLL_SECONDS } from "./collection-status.ts";
import { type ImportRun, importTrace, type TraceToImport } from "./import-trace.ts";

/** Long enough for one page of reads and imports; a dead holder's lease lapses after it. */
export const COLLECTION_LEASE_SECONDS = 300;
/** Traces read per provider page (every provider's page limit allows 100). */
export const COLLECTION_PAGE_SIZE = 100;
/** Traces of a page whose supporting spans are read at once, ahead of their imports. */
const SPAN_READS_AHEAD = 8;
/**
 * Live windows end this long before now: a trace whose start lies just before now may not be
 * listed by the provider yet.
 */
export const LIVE_SETTLE_SECONDS = 5;
/**
 * Providers ingest asynchronously, so a trace can be listed minutes after its start, behind the
 * watermark. Each live window therefore starts this far before the watermark (never before the
 * activation); what it reads again there was imported or held already and is passed over
 * uncounted, so only traces listed late are news. Two minutes at one poll a minute reads live
 * traffic about three times.
 */
export const LIVE_LOOKBACK_SECONDS = 120;
/** Waits after passing failures: the provider's rate limit (when it names none), an outage, our own. */
const RETRY_SECONDS = { rate_limited: 60, unavailable: 30, unexpected: 10 } as const;
/**
 * Failures waiting does not mend: the provider refused the credential or the query, or the endpoint
 * or project is gone. The stream stops reading until the operator acts (any operation, a filter
 * edit, a mapping promotion or a credential rotation makes it due at once); without that it tries
 * again only after this long, a removed endpoint sooner (a deployment may be mid-upgrade, and each
 * read tries the fallback endpoints first).
 */
export const CONFIGURATION_RETRY_SECONDS = { credential_refused: 24 * 3600, rejected: 24 * 3600, not_found: 6 * 3600 } as const;
const NEXT_STEP = {
  credential_refused:
    "rotate the connection's credential (PUT /connections/{connection_id}/credential) with a key that reaches the external project; the stream reads again at once",
  rejected:
    "check the stream's traffic filters and external project against the provider, correct them (PUT /streams/{stream_id}/traffic-filters), then poll_now",
  not_found: "check that the external project still exists at the provider and that the connection's region is the provider's current one; poll_now once it is",
} as const;

/**
 * What one collection step leaves for its orchestrator: `again` (more work now), `retry` at a time
 * (the next live poll, a cooldown, a backoff), `busy` (another worker holds it) or `done` (paused,
 * stopped or deleted: a resume schedules it again). `progress` is for the operator (Temporal UI).
 */
export type CollectionStepOutcome = ({ next: "again" } | { next: "retry"; at: number } | { next: "busy" } | { next: "done" }) & {
  progress?: string;
  unexpected?: string;
};

/**
 * One unit of a collection's work under its lease, in this order: held records a retry queued,
 * then a page of live traffic when a poll is due, then a page of the history backfill. Each page
 * is imported trace by trace (importTrace: exactly once through receipts) and then checkpointed with
 * its counts; a crash between the two re-reads the page and finds its receipts. Provider rate limits
 * set the connection's shared cooldown; other provider failures are recorded and retried later.
 */
export async function runCollectionStep(
  deps: CoreDeps,
  scope: Scope,
  streamId: string,
  leaseToken: string = crypto.randomUUID(),
): Promise<CollectionStepOutcome> {
  const now = deps.now();
  const collection = await dataSourceCollections.claimCollection(deps.db, scope, streamId, leaseToken, now, COLLECTION_LEASE_SECONDS);
  if (!collection) {
    const found = await dataSourceCollections.findCollection(deps.db, scope, streamId);
    return !found || found.state !== "active" ? { next: "done" } : { next: "busy" };
  }
  const release = async (at: number, progress?: string): Promise<CollectionStepOutcome> => {
    await dataSourceCollections.releaseCollection(deps.db, scope, streamId, leaseToken, at);
    return { next: at <= deps.now() ? "again" : "retry", at, ...(progress && { progress }) } as CollectionStepOutcome;
  };
  const cooldown = await dataSourceCollections.connectionCooldown(deps.db, scope, collection.connection_id);
  if (cooldown !== null && cooldown > now) return release(cooldown, `Waiting for the provider's rate limit until ${new Date(cooldown * 1000).toISOString()}`);
  try {
    const worked = await runOneUnit(deps, scope, collection, leaseToken);
    if (collection.last_error_code !== null) await dataSourceCollections.recordError(deps.db, scope, streamId, null, deps.now());
    if (worked) return release(deps.now(), worked);
    const next = await dataSourceCollections.findCollection(deps.db, scope, streamId);
    return release(next?.live_next_poll_at ?? deps.now() + LIVE_POLL_SECONDS, "Following live traffic: waiting for the next poll");
  } catch (error) {
    if (error instanceof LeaseLost) return { next: "done" };
    const at = deps.now();
    if (error instanceof TraceProviderError && error.kind in CONFIGURATION_RETRY_SECONDS) {
      const kind = error.kind as keyof typeof CONFIGURATION_RETRY_SECONDS;
      const retryAt = at + CONFIGURATION_RETRY_SECONDS[kind];
      const message = `${error.message}. Reading stopped; next step: ${NEXT_STEP[kind]}`;
      await dataSourceCollections.recordError(deps.db, scope, streamId, { code: `provider_${kind}`, message }, at);
      return release(retryAt, `Stopped: provider ${kind}, waiting for the operator (or ${new Date(retryAt * 1000).toISOString()})`);
    }
    if (error instanceof TraceProviderError) {
      const kind = error.kind as "rate_limited" | "unavailable";
      const retryAt = kind === "rate_limited" ? (error.retryAt ?? at + RETRY_SECONDS.rate_limited) : at + RETRY_SECONDS[kind];
      if (error.kind === "rate_limited") await dataSourceCollections.setConnectionCooldown(deps.db, scope, collection.connection_id, retryAt);
      await dataSourceCollections.recordError(deps.db, scope, streamId, { code: `provider_${error.kind}`, message: error.message }, at);
      return release(retryAt, `Provider ${error.kind}: retrying at ${new Date(retryAt * 1000).toISOString()}`);
    }
    const message = error instanceof Error ? error.message : String(error);
    await dataSourceCollections
      .recordError(deps.db, scope, streamId, { code: "internal_error", message: "an unexpected failure; retrying" }, at)
      .catch(() => {});
    return { ...(await release(at + RETRY_SECONDS.unexpected)), unexpected: message };
  }
}

/** Does the next unit of work; returns what it did for the operator, or null when nothing is due. */
async function runOneUnit(deps: CoreDeps, scope: Scope, collection: CollectionRecord, leaseToken: string): Promise<string | null> {
  const now = deps.now();
  const run = (phase: ImportRun["phase"]): ImportRun => ({ deps, scope, collection, leaseToken, phase, movedUsers: new Set() });
  const queued = await dataSourceHeld.queuedHeld(deps.db, scope, collection.stream_id, COLLECTION_PAGE_SIZE);
  if (queued.length > 0) {
    const retry = run("retry");
    // Retries are not budgeted (only the backfill is): a retried record never meets the budget.
    const traces = queued.map((record) => ({ id: record.external_trace_id, started_at: record.started_at, record: record.record }));
    const { delta } = await importPage(retry, traces);
    await dataSourceCollections.addCounts(deps.db, scope, collection.stream_id, "retry", delta);
    return `Retried ${queued.length} held records`;
  }
  const liveDue = collection.live_window_end !== null || collection.live_next_poll_at <= now;
  const windowEnd = collection.live_window_end ?? now - LIVE_SETTLE_SECONDS;
  if (liveDue && windowEnd <= collection.live_watermark) {
    // Nothing settled since the last poll: the next one is scheduled, and the backfill goes on now.
    await saveLive(deps, scope, collection, leaseToken, { cursor: null, windowEnd: null, watermark: collection.live_watermark, delta: {} });
  } else if (liveDue) {
    const live = run("live");
    const windowStart = Math.max(collection.activated_at, collection.live_watermark - LIVE_LOOKBACK_SECONDS);
    const { page, provider } = await readPage(deps, scope, collection, { start: windowStart, end: windowEnd, cursor: collection.live_cursor });
    const { traces, lookedBack } = await withoutKnownLookBack(deps, scope, collection, page.traces);
    const { delta } = await importPage(live, traces, { provider, lookedBack });
    const more = page.next_cursor !== null;
    await saveLive(deps, scope, collection, leaseToken, {
      cursor: page.next_cursor,
      windowEnd: more ? windowEnd : null,
      watermark: more ? collection.live_watermark : windowEnd,
      delta,
    });
    return `Live traffic: ${page.traces.length} traces read up to ${new Date(windowEnd * 1000).toISOString()}`;
  }
  if (collection.backfill_status === "importing" && collection.history_start !== null && collection.history_end !== null) {
    const backfill = run("backfill");
    const { page, provider } = await readPage(deps, scope, collection, {
      start: collection.history_start,
      end: collection.history_end,
      cursor: collection.backfill_cursor,
    });
    const { delta, overBudget } = await importPage(backfill, page.traces, { provider });
    crashAt(deps, "collection.before_checkpoint");
    const status = overBudget ? "budget_exhausted" : page.next_cursor === null ? "complete" : "importing";
    // At the budget the page is not passed: after an extension it is read again, its imports found by their receipts.
    const saved = await dataSourceCollections.saveCheckpoint(deps.db, scope, collection.stream_id, leaseToken, {
      phase: "backfill",
      cursor: overBudget ? collection.backfill_cursor : page.next_cursor,
      status,
      now: deps.now(),
      delta,
    });
    if (!saved) throw new LeaseLost();
    const counts = collection.counts.backfill ?? {};
    return `Backfill page ${collection.backfill_pages + 1}: ${(counts.imported ?? 0) + (delta.imported ?? 0)} imported, ${status}`;
  }
  return null;
}

/**
 * The page without the traces of the look-back (started before the watermark) that were imported or
 * held already, and the ids of the look-back's other traces.
 */
async function withoutKnownLookBack(
  deps: CoreDeps,
  scope: Scope,
  collection: CollectionRecord,
  traces: ProviderTrace[],
): Promise<{ traces: ProviderTrace[]; lookedBack: Set<string> }> {
  const before = traces.filter((trace) => trace.started_at < collection.live_watermark).map((trace) => trace.id);
  if (before.length === 0) return { traces, lookedBack: new Set() };
  const [receipted, held] = await Promise.all([
    dataSourceReceipts.receiptedTraces(deps.db, scope, collection.provider, collection.external_project_id, before),
    dataSourceHeld.heldTraceIds(deps.db, scope, collection.stream_id, before),
  ]);
  const known = new Set([...receipted, ...held]);
  return { traces: traces.filter((trace) => !known.has(trace.id)), lookedBack: new Set(before.filter((id) => !known.has(id))) };
}

/**
 * Imports a page's traces in order, skipping those with receipts; stops at the backfill's budget.
 * Traces read from the provider (`read.provider`) get their supporting spans first (supportedTrace);
 * retried records carry theirs already. A trace of the live look-back (`lookedBack`) that the
 * mapping excludes was, most likely, excluded when first read: it is not counted again.
 */
async function importPage(
  run: ImportRun,
  traces: (TraceToImport | ProviderTrace)[],
  read: { provider?: TraceProvider; lookedBack?: ReadonlySet<string> } = {},
): Promise<{ delta: OutcomeCounts; overBudget: boolean }> {
  const lookedBack = read.lookedBack ?? new Set<string>();
  const { deps, scope, collection } = run;
  const receipted = await dataSourceReceipts.receiptedTraces(
    deps.db,
    scope,
    collection.provider,
    collection.external_project_id,
    traces.map((trace) => trace.id),
  );
  const delta: OutcomeCounts = { read: traces.length, imported: 0 };
  let overBudget = false;
  const ready = new Map<string, Promise<TraceToImport>>();
  for (const [index, trace] of traces.entries()) {
    // The spans of the next few traces are read while these import: a read is a round trip to the provider.
    if (read.provider && index % SPAN_READS_AHEAD === 0) {
      for (const next of traces.slice(index, index + SPAN_READS_AHEAD)) {
        if (receipted.has(next.id)) continue;
        const supported = supportedTrace(run, read.provider, next as ProviderTrace, delta);
        // Awaited when its trace's turn comes; one left behind (the budget spent, a failure before it) is not an unhandled rejection.
        supported.catch(() => {});
        ready.set(next.id, supported);
      }
    }
    const outcome = receipted.has(trace.id) ? "duplicates" : await importTrace(run, (await ready.get(trace.id)) ?? trace);
    // A retried record leaves the queue whatever became of it: held again (with its new reasons) or resolved.
    if (run.phase === "retry" && (outcome === "duplicates" || outcome === "excluded")) {
      await dataSourceHeld.releaseHeld(deps.db, scope, collection.stream_id, trace.id);
    }
    if (outcome === "over_budget") {
      overBudget = true;
      break;
    }
    if (outcome === "excluded" && lookedBack.has(trace.id)) {
      delta.read = (delta.read ?? 0) - 1;
      continue;
    }
    // Imports are counted in their own transactions (admitImport).
    if (outcome !== "imported") delta[outcome] = (delta[outcome] ?? 0) + 1;
  }
  // Reads still in flight (the budget stopped the page) count before the counts are saved.
  await Promise.allSettled(ready.values());
  delete delta.imported;
  await scheduleMovedUsers(deps, scope, run);
  return { delta, overBudget };
}

/**
 * The trace with its supporting context (`/supporting_spans`), read when it can matter (rule 11:
 * only as context for an eligible interaction): when the root alone is not excluded by the
 * mapping, or a rule reads the supporting context. Counts the spans read, and the traces whose
 * spans were cut at the limits, in `delta`.
 */
async function supportedTrace(run: ImportRun, provider: TraceProvider, trace: ProviderTrace, delta: OutcomeCounts): Promise<TraceToImport> {
  const definition = run.collection.mapping_definition as MappingDefinition;
  if (!readsSupportingSpans(definition) && mapRecord(definition, trace.record).status === "excluded") return trace;
  const context = await readSupportingSpans(provider, run.collection.provider as ProviderName, run.collection.external_project_id, trace);
  delta.spans_read = (delta.spans_read ?? 0) + context.spans_read;
  if (context.truncated) delta.spans_bounded = (delta.spans_bounded ?? 0) + 1;
  return { id: trace.id, started_at: trace.started_at, record: withSupportingSpans(trace.record, context) };
}

/** Whether a rule of the mapping reads the supporting context. */
const readsSupportingSpans = (definition: MappingDefinition) =>
  definition.rules.some((rule) => Object.values(rule.fields).some((field) => field?.path.startsWith("/supporting_spans")));

async function scheduleMovedUsers(deps: CoreDeps, scope: Scope, run: ImportRun): Promise<void> {
  for (const userId of run.movedUsers) await deps.orchestrator?.schedule("learning", scope, userId);
}

async function saveLive(
  deps: CoreDeps,
  scope: Scope,
  collection: CollectionRecord,
  leaseToken: string,
  change: { cursor: string | null; windowEnd: number | null; watermark: number; delta: OutcomeCounts },
): Promise<void> {
  const now = deps.now();
  const windowDone = change.windowEnd === null;
  const saved = await dataSourceCollections.saveCheckpoint(deps.db, scope, collection.stream_id, leaseToken, {
    phase: "live",
    ...change,
    nextPollAt: windowDone ? now + LIVE_POLL_SECONDS : collection.live_next_poll_at,
    polledAt: windowDone ? now : null,
    now,
  });
  if (!saved) throw new LeaseLost();
}

/** One provider page of root traces started in [start, end) that pass the collection's filters. */
async function readPage(deps: CoreDeps, scope: Scope, collection: CollectionRecord, window: { start: number; end: number; cursor: string | null }) {
  const connection = await dataSources.findConnection(deps.db, scope, collection.connection_id, deps.now());
  if (!connection) throw new LeaseLost();
  const provider = await providerOfConnection(deps, connection);
  const page = await provider.pageTraces({
    external_project_id: collection.external_project_id,
    start: window.start,
    end: window.end,
    filters: collection.filters as TraceFilter[],
    cursor: window.cursor,
    limit: COLLECTION_PAGE_SIZE,
    metadata_keys: metadataKeysOf(collection.mapping_definition as MappingDefinition),
  });
  const note = page.endpoint_note ?? null;
  if (page.endpoint !== undefined && (page.endpoint !== collection.provider_endpoint || note !== collection.provider_endpoint_note)) {
    await dataSourceCollections.recordEndpoint(deps.db, scope, collection.stream_id, page.endpoint, note);
  }
  return { page, provider };
}

/** The metadata keys a mapping reads (`/metadata/<key>...`): read whole where a provider cuts long values. */
function metadataKeysOf(definition: MappingDefinition): string[] {
  const keys = new Set<string>();
  for (const rule of definition.rules ?? []) {
    for (const field of Object.values(rule.fields ?? {})) {
      const match = /^\/metadata\/([^/]+)/.exec((field as { path?: string } | undefined)?.path ?? "");
      if (match) keys.add(match[1]!.replaceAll("~1", "/").replaceAll("~0", "~"));
    }
  }
  return [...keys];
}
