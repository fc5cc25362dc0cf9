import { type Attributes, propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { ended, TRACER_NAME, tracingOn } from "./in-span.ts";

const headerGetter = {
  keys: (headers: Headers) => [...headers.keys()],
  get: (headers: Headers, key: string) => headers.get(key) ?? undefined,
};

/**
 * `answer` inside the server span of one HTTP request, named `name` (the declared procedure, or a
 * fixed route's name: never the path, which carries ids). A W3C traceparent from the caller makes
 * it a child of the caller's span; otherwise it starts a trace. `after` reads attributes off the
 * answer (its status). Off, `answer` runs alone.
 */
export function inRequestSpan<T>(
  name: string,
  headers: Headers,
  attributes: Attributes,
  answer: () => Promise<T>,
  after: (result: T) => Attributes,
): Promise<T> {
  if (!tracingOn()) return answer();
  const parent = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  return trace.getTracer(TRACER_NAME).startActiveSpan(name, { kind: SpanKind.SERVER, attributes }, parent, (span) => ended(span, answer, after));
}
