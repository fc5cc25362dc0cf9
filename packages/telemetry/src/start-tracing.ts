import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { Resource } from "@opentelemetry/resources";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { OtlpFetchExporter } from "./otlp-fetch-exporter.ts";
import { redactingProcessor } from "./redacting-processor.ts";
import type { TracingSettings } from "./tracing-settings.ts";

/** Spans are sent in batches of at most this many, at least this often; past the queue's size new ones are dropped, never waited for. */
const BATCH = { maxExportBatchSize: 512, scheduledDelayMillis: 1_000, maxQueueSize: 4_096, exportTimeoutMillis: 5_000 };

export interface Tracing {
  /** Exports the spans still queued (bounded by the export timeout) and stops. */
  shutdown(): Promise<void>;
  /** What the Temporal worker's workflow spans are exported through (their sandbox reaches it by a sink). */
  processor: SpanProcessor;
  resource: Resource;
}

function samplerOf(settings: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.samplerRatio);
  switch (settings.sampler) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "traceidratio":
      return ratio;
    case "parentbased_always_on":
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case "parentbased_always_off":
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case "parentbased_traceidratio":
      return new ParentBasedSampler({ root: ratio });
  }
}

/**
 * Starts the process's tracer: spans batched to the OTLP/HTTP endpoint in the background (a slow
 * or absent collector never holds a request: a full queue drops spans), the active span carried
 * through awaits by AsyncLocalStorage (Node and Bun), W3C trace context read from and written to
 * headers. Called once, before anything opens a span.
 */
export function startTracing(settings: TracingSettings, defaultServiceName: string): Tracing {
  const resource = new Resource({ [ATTR_SERVICE_NAME]: settings.serviceName ?? defaultServiceName });
  const exporter = new OtlpFetchExporter(settings.url, settings.headers, BATCH.exportTimeoutMillis);
  const processor = redactingProcessor(new BatchSpanProcessor(exporter, BATCH));
  const provider = new BasicTracerProvider({ resource, sampler: samplerOf(settings), spanProcessors: [processor] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    processor,
    resource,
    async shutdown() {
      // Spans the collector did not take are dropped: a collector that is down must not fail a stop.
      await provider.shutdown().catch(() => undefined);
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
