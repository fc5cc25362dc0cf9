import { type Attributes, context, ProxyTracerProvider, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";

/** The name our spans are recorded under (the instrumentation scope). */
export const TRACER_NAME = "agent-learning-service";

/** What the API's tracer provider delegates to while no SDK is registered. */
const NO_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * Whether spans are recorded in this process: an SDK is registered with the OpenTelemetry API
 * (startTracing), the one place that state is kept. Off, every span helper calls its function and
 * nothing else: the API's no-op tracer would still build a span object and a context per call,
 * which the hot paths (a search makes a dozen database calls) need not pay for when nobody exports them.
 */
export const tracingOn = (): boolean => (trace.getTracerProvider() as ProxyTracerProvider).getDelegate() !== NO_PROVIDER;

/**
 * `run` inside a span named `name`, a child of the span active now: ended when `run` settles,
 * marked as an error (its class name, never its message, which may quote tenant content) when it
 * throws. `after` adds attributes known only from the result (a count, a status).
 */
export function inSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>, after?: (result: T) => Attributes): Promise<T> {
  if (!tracingOn()) return run();
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, (span) => ended(span, run, after));
}

/** The trace id of the span active now, when tracing is on and one is. */
export function activeTraceId(): string | undefined {
  if (!tracingOn()) return undefined;
  const span = trace.getSpan(context.active());
  return span?.isRecording() ? span.spanContext().traceId : undefined;
}

/** Runs `run` and ends `span` with its outcome. */
export async function ended<T>(span: Span, run: () => Promise<T>, after?: (result: T) => Attributes): Promise<T> {
  try {
    const result = await run();
    if (after) span.setAttributes(after(result));
    return result;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.setAttribute("error.type", error instanceof Error ? error.name : typeof error);
    throw error;
  } finally {
    span.end();
  }
}
