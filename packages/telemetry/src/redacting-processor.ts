import type { Context } from "@opentelemetry/api";
import type { ReadableSpan, Span, SpanProcessor } from "@opentelemetry/sdk-trace-base";

/**
 * Attributes others' instrumentation sets that carry tenant ids or content: Temporal's interceptors
 * name the workflow (our workflow ids hold the organisation, project and user: learn:org:project:user)
 * and a termination's reason.
 */
const REDACTED_ATTRIBUTES = ["temporalWorkflowId", "temporalTerminateReason"];
/** An exception's message and stack may quote what failed on (a prompt, a row): only its type is kept. */
const REDACTED_EXCEPTION_ATTRIBUTES = ["exception.message", "exception.stacktrace"];

/**
 * `inner`, given every span without the attributes above and without its status message (an
 * error's message), so what leaves the process names no user, key or tenant content whoever
 * made the span (our spans set none of them).
 */
export function redactingProcessor(inner: SpanProcessor): SpanProcessor {
  return {
    onStart: (span: Span, parent: Context) => inner.onStart(span, parent),
    onEnd(span: ReadableSpan) {
      const attributes = span.attributes as Record<string, unknown>;
      for (const key of REDACTED_ATTRIBUTES) delete attributes[key];
      for (const event of span.events) {
        const eventAttributes = (event.attributes ?? {}) as Record<string, unknown>;
        for (const key of REDACTED_EXCEPTION_ATTRIBUTES) delete eventAttributes[key];
      }
      if (span.status.message !== undefined) (span.status as { message?: string }).message = undefined;
      inner.onEnd(span);
    },
    forceFlush: () => inner.forceFlush(),
    shutdown: () => inner.shutdown(),
  };
}
