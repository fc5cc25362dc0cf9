import { textOf } from "../providers/provider-json.ts";
import type { ProviderName, ProviderTrace, TraceProvider } from "../providers/trace-provider.ts";
import { SUPPORTING_SPAN_READ_LIMIT, type SupportingContext, supportingContextOf } from "./supporting-spans.ts";

/**
 * The supporting context of one eligible trace (rule 11: spans are read only as context for a
 * trace that passed the stream's filters, never as traffic of their own): up to
 * SUPPORTING_SPAN_READ_LIMIT of its spans, besides the root; one more is asked for so that a cut is known.
 */
export async function readSupportingSpans(
  provider: TraceProvider,
  providerName: ProviderName,
  externalProjectId: string,
  trace: ProviderTrace,
): Promise<SupportingContext> {
  const rootId = rootSpanIdOf(trace);
  const spans = await provider.relatedSpans(externalProjectId, trace.id, trace.started_at, SUPPORTING_SPAN_READ_LIMIT + 2);
  const children = spans.filter((span) => span.id !== rootId && span.span_id !== rootId);
  const more = children.length > SUPPORTING_SPAN_READ_LIMIT;
  return supportingContextOf(providerName, rootId, more ? children.slice(0, SUPPORTING_SPAN_READ_LIMIT) : children, more);
}

/** The id the root's own span carries: the trace's, except a Langfuse root observation's. */
export const rootSpanIdOf = (trace: ProviderTrace): string => textOf(trace.record.rootObservationId ?? trace.id);

/** The record a mapping reads for a trace: the root record's fields, and its supporting context at `/supporting_spans`. */
export function withSupportingSpans(record: Record<string, unknown>, context: SupportingContext): Record<string, unknown> {
  return { ...record, supporting_spans: context };
}
