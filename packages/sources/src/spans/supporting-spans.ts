import { textOf } from "../providers/provider-json.ts";
import type { ProviderName } from "../providers/trace-provider.ts";

/** Spans of one trace read from its provider at most (rule 11: context, not traffic). */
export const SUPPORTING_SPAN_READ_LIMIT = 200;
/** Spans of one trace kept as its context at most, its root not counted. */
export const SUPPORTING_SPAN_LIMIT = 50;
/** Bytes of the kept spans' input and output (as JSON) for one trace at most. */
export const SUPPORTING_SPAN_BYTES = 256 * 1024;

/** A tool call of the trace, as the contract's ToolUsed. A retrieval is one too, its `tool_data.kind` saying so. */
export interface SupportingTool {
  tool_name: string;
  tool_data: { kind: "tool" | "retrieval"; input: unknown; output: unknown; latency_ms: number | null };
  status: string | null;
}

/**
 * What a trace's supporting spans say, in one shape whatever the provider: the mapping reads it at
 * `/supporting_spans` beside the root record's own fields. `conversation` is the last LLM call's
 * messages and answer as text; `last_user_message` and `final_answer` its two ends, for a trace whose
 * root holds no dialogue of its own.
 */
export interface SupportingContext {
  llm_calls: { name: string; input: unknown; output: unknown }[];
  conversation: { role: string; content: string }[];
  last_user_message: string | null;
  final_answer: string | null;
  tools: SupportingTool[];
  retrievals: { name: string; query: unknown; documents: unknown }[];
  /** Spans read from the provider (the root not counted). */
  spans_read: number;
  /** Spans kept within SUPPORTING_SPAN_LIMIT and SUPPORTING_SPAN_BYTES. */
  spans_kept: number;
  /** Whether spans were left out: past the read limit, the count or the bytes. */
  truncated: boolean;
}

type SpanKind = "llm" | "tool" | "retrieval" | "other";

interface Span {
  id: string;
  kind: SpanKind;
  name: string;
  /** Milliseconds since the epoch: steps of one agent are often within a second. */
  started_ms: number;
  input: unknown;
  output: unknown;
  status: string | null;
  latency_ms: number | null;
}

/** Which spans are kept first when a trace has more than fit: the dialogue, then what was retrieved, then tool calls. */
const PRIORITY: Record<SpanKind, number> = { llm: 0, retrieval: 1, tool: 2, other: 3 };

/**
 * The supporting context of a trace from the spans its provider listed (the root among them, or
 * not): the root is left out; of the rest, at most SUPPORTING_SPAN_LIMIT within
 * SUPPORTING_SPAN_BYTES are kept, LLM calls first (they hold the dialogue), then retrievals, then
 * tool calls, each kind oldest first, and listed in start order. `more`: the provider held spans
 * past those read.
 */
export function supportingContextOf(provider: ProviderName, rootId: string, spans: readonly Record<string, unknown>[], more = false): SupportingContext {
  const children = spans.map((span) => SPAN_OF[provider](span)).filter((span) => span.id !== rootId);
  const byPriority = children
    .map((span, order) => ({ span, order }))
    .sort((a, b) => PRIORITY[a.span.kind] - PRIORITY[b.span.kind] || a.span.started_ms - b.span.started_ms || a.order - b.order);
  const chosen: { span: Span; order: number }[] = [];
  let bytes = 0;
  for (const candidate of byPriority) {
    if (chosen.length === SUPPORTING_SPAN_LIMIT) break;
    const size = Buffer.byteLength(JSON.stringify([candidate.span.input, candidate.span.output]) ?? "", "utf8");
    if (bytes + size > SUPPORTING_SPAN_BYTES) continue;
    bytes += size;
    chosen.push(candidate);
  }
  const kept = chosen.sort((a, b) => a.span.started_ms - b.span.started_ms || a.order - b.order).map(({ span }) => span);
  const truncated = more || kept.length < children.length;
  const llmCalls = kept.filter((span) => span.kind === "llm");
  const last = llmCalls.at(-1);
  const conversation = last ? [...messagesOf(last.input), ...messagesOf(last.output).map((message) => ({ ...message, role: "assistant" }))] : [];
  return {
    llm_calls: llmCalls.map((span) => ({ name: span.name, input: span.input, output: span.output })),
    conversation,
    last_user_message: conversation.findLast((message) => message.role === "user")?.content ?? null,
    final_answer: last ? (messagesOf(last.output).at(-1)?.content ?? null) : null,
    tools: kept
      .filter((span) => span.kind === "tool" || span.kind === "retrieval")
      .map((span) => ({
        tool_name: span.name,
        tool_data: { kind: span.kind as "tool" | "retrieval", input: span.input, output: span.output, latency_ms: span.latency_ms },
        status: span.status,
      })),
    retrievals: kept.filter((span) => span.kind === "retrieval").map((span) => ({ name: span.name, query: span.input, documents: span.output })),
    spans_read: children.length,
    spans_kept: kept.length,
    truncated,
  };
}

const latencyOf = (start: unknown, end: unknown): number | null => {
  const ms = Date.parse(zoned(textOf(end))) - Date.parse(zoned(textOf(start)));
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
};
/** A provider's timestamp in milliseconds; an unreadable one sorts last. */
const millisecondsOf = (value: unknown): number => {
  const ms = Date.parse(zoned(textOf(value)));
  return Number.isFinite(ms) ? ms : Number.MAX_SAFE_INTEGER;
};
/** LangSmith sends times without a zone: UTC. */
const zoned = (text: string) => (/(Z|[+-]\d{2}:?\d{2})$/i.test(text) || !text.includes("T") ? text : `${text}Z`);

/**
 * Each provider's span as one shape. Braintrust types spans `llm`, `tool`, `function`, `task`…
 * and has no retrieval type: a tool or function span named for retrieval is one. Langfuse types
 * observations GENERATION, TOOL, RETRIEVER, SPAN, AGENT…; LangSmith runs `llm`, `tool`, `retriever`, `chain`….
 */
const SPAN_OF: Record<ProviderName, (span: Record<string, unknown>) => Span> = {
  trace_provider_a(span) {
    const attributes = (span.span_attributes ?? {}) as Record<string, unknown>;
    const type = textOf(attributes.type);
    const name = textOf(attributes.name);
    const metrics = (span.metrics ?? {}) as Record<string, unknown>;
    const kind: SpanKind = type === "llm" ? "llm" : type === "tool" || type === "function" ? (/retriev/i.test(name) ? "retrieval" : "tool") : "other";
    const seconds = typeof metrics.start === "number" && typeof metrics.end === "number" ? metrics.end - metrics.start : null;
    return {
      id: textOf(span.span_id ?? span.id),
      kind,
      name,
      started_ms: millisecondsOf(span.created),
      input: span.input ?? null,
      output: span.output ?? null,
      status: span.error == null ? "success" : "error",
      latency_ms: seconds !== null && seconds >= 0 ? Math.round(seconds * 1000) : null,
    };
  },
  trace_provider_b(span) {
    const type = textOf(span.type).toUpperCase();
    const kind: SpanKind = type === "GENERATION" ? "llm" : type === "TOOL" ? "tool" : type === "RETRIEVER" ? "retrieval" : "other";
    return {
      id: textOf(span.id),
      kind,
      name: textOf(span.name),
      started_ms: millisecondsOf(span.startTime),
      input: span.input ?? null,
      output: span.output ?? null,
      status: span.level === "ERROR" ? "error" : "success",
      latency_ms: latencyOf(span.startTime, span.endTime),
    };
  },
  trace_provider_c(span) {
    const type = textOf(span.run_type).toLowerCase();
    const kind: SpanKind = type === "llm" ? "llm" : type === "tool" ? "tool" : type === "retriever" ? "retrieval" : "other";
    return {
      id: textOf(span.id),
      kind,
      name: textOf(span.name),
      started_ms: millisecondsOf(span.start_time),
      input: span.inputs ?? null,
      output: span.outputs ?? null,
      status: typeof span.status === "string" ? span.status.toLowerCase() : span.error == null ? "success" : "error",
      latency_ms: latencyOf(span.start_time, span.end_time),
    };
  },
};

/**
 * The messages of an LLM call's input or output as text, whichever common shape it has: a list of
 * `{role, content}`, `{messages: [...]}` (LangSmith, Langfuse), one message, `{choices: [{message}]}`,
 * LangChain's `{generations: [[{message|text}]]}`, or plain text (the assistant's). Content arrays
 * keep their text blocks; a message without text is left out.
 */
function messagesOf(value: unknown): { role: string; content: string }[] {
  if (typeof value === "string") return value.trim() === "" ? [] : [{ role: "assistant", content: value }];
  if (Array.isArray(value)) return value.flatMap((item) => (Array.isArray(item) ? messagesOf(item) : messageOf(item)));
  if (value === null || typeof value !== "object") return [];
  const record = value as Record<string, unknown>;
  if (Array.isArray(record.messages)) return messagesOf(record.messages);
  if (Array.isArray(record.choices)) return record.choices.flatMap((choice) => messageOf((choice as Record<string, unknown> | null)?.message));
  if (Array.isArray(record.generations)) return messagesOf(record.generations);
  return messageOf(record);
}

function messageOf(value: unknown): { role: string; content: string }[] {
  if (value === null || typeof value !== "object") return typeof value === "string" ? messagesOf(value) : [];
  const record = value as Record<string, unknown>;
  const inner = record.message && typeof record.message === "object" ? (record.message as Record<string, unknown>) : record;
  const role = roleOf(inner.role ?? inner.type);
  const content = textOfContent(inner.content ?? inner.text ?? record.text);
  return content === null ? [] : [{ role, content }];
}

/** Roles as OpenAI names them (LangChain says human and ai). */
function roleOf(value: unknown): string {
  const role = textOf(value).toLowerCase();
  return role === "human" ? "user" : role === "ai" || role === "" ? "assistant" : role;
}

function textOfContent(content: unknown): string | null {
  if (typeof content === "string") return content.trim() === "" ? null : content;
  if (!Array.isArray(content)) return null;
  const texts = content
    .map((block) =>
      typeof block === "string"
        ? block
        : block && typeof block === "object" && (block as { type?: unknown }).type !== "tool_use"
          ? (block as { text?: unknown }).text
          : null,
    )
    .filter((text): text is string => typeof text === "string" && text.trim() !== "");
  return texts.length === 0 ? null : texts.join("\n");
}
