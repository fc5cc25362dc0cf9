import { createHash } from "node:crypto";
import braintrust from "../../fixtures/trace-providers/braintrust.json";
import langfuse from "../../fixtures/trace-providers/langfuse.json";
import langsmith from "../../fixtures/trace-providers/langsmith.json";
import type { BraintrustData } from "./braintrust-server.ts";
import type { LangfuseData } from "./langfuse-server.ts";
import type { LangsmithData } from "./langsmith-server.ts";

/** The external project each provider's generated traffic belongs to (the fixtures' support projects). */
export const SYNTHETIC_PROJECTS = {
  trace_provider_a: "7c3b4a10-5d2e-4f61-9a8b-1c2d3e4f5a01",
  trace_provider_b: "cm3x2k9p10001lfsupport001",
  trace_provider_c: "a3f0c1de-0000-4000-8000-000000000001",
} as const;

/** Mapping fields that read the generated traffic of each provider (a trace without a user is held). */
export const SYNTHETIC_MAPPING_FIELDS = {
  trace_provider_a: { user: { path: "/metadata/user_id" }, input: { path: "/input/0/content" }, output: { path: "/output", transform: "first_text_block" } },
  trace_provider_b: {
    user: { path: "/userId" },
    session: { path: "/sessionId" },
    input: { path: "/input/messages/0/content" },
    output: { path: "/output/content" },
  },
  trace_provider_c: {
    user: { path: "/extra/metadata/user_id" },
    input: { path: "/inputs/messages/0/content" },
    output: { path: "/outputs/output" },
    timestamp: { path: "/start_time" },
  },
} as const;

/**
 * Mapping fields for nested traffic (`nested` set): the dialogue is read from the agent's LLM call
 * among the supporting spans, the user from the root, and the learnings the agent's retrieval step
 * found as the interaction's references.
 */
export const NESTED_MAPPING_FIELDS = {
  trace_provider_a: {
    user: { path: "/metadata/user_id" },
    input: { path: "/supporting_spans/last_user_message" },
    output: { path: "/supporting_spans/final_answer" },
    references: { path: "/supporting_spans/retrievals/0/documents" },
  },
  trace_provider_b: {
    user: { path: "/userId" },
    session: { path: "/sessionId" },
    input: { path: "/supporting_spans/last_user_message" },
    output: { path: "/supporting_spans/final_answer" },
    references: { path: "/supporting_spans/retrievals/0/documents" },
  },
  trace_provider_c: {
    user: { path: "/extra/metadata/user_id" },
    input: { path: "/supporting_spans/last_user_message" },
    output: { path: "/supporting_spans/final_answer" },
    references: { path: "/supporting_spans/retrievals/0/documents/documents" },
  },
} as const;

/** What a nested trace's agent did: one retrieval of learnings, `tools` tool calls, one LLM call. */
export interface NestedShape {
  /** Tool calls per trace (default 1). */
  tools?: number;
  /** Characters of each tool call's output (default a short one). */
  toolOutputChars?: number;
}

/** The learnings a nested trace's retrieval step found (the agent searched this service before answering). */
export const nestedLearnings = (label: string) => [
  { kind: "agent_playbook", learning_id: `ap-${label}`, content: "Point the user at Settings > Security." },
  { kind: "profile", learning_id: `pr-${label}`, content: "The user is on the pro plan." },
];

/** Every `heldEvery`th generated trace has no user: a collection holds it (`user:missing`). */
export interface TrafficShape {
  /** Unix seconds of the first trace; traces follow one every `spacing` seconds. */
  start: number;
  count: number;
  spacing?: number;
  heldEvery?: number;
  /** Distinct ids across calls (live traffic added later). */
  idPrefix?: string;
  /** The traces' tags (Braintrust: what a tags filter reads); unset: the fixture's. */
  tags?: string[];
  /**
   * An agent's nested trace instead of a flat one: the root holds the ticket only, the dialogue is
   * in an LLM-call span beside a retrieval and tool calls.
   */
  nested?: NestedShape;
}

/** The spans of nested trace `label` in order: retrieval, tool calls, then the LLM call that answered. */
function nestedSpans(label: string, nested: NestedShape) {
  const tools = Array.from({ length: nested.tools ?? 1 }, (_, index) => ({
    name: index === 0 ? "lookup_account" : `lookup_order_${index}`,
    input: { account: `acct-${label}` },
    output: { locked: false, note: "x".repeat(nested.toolOutputChars ?? 8) },
  }));
  return {
    retrieval: { name: "retrieve_learnings", input: { query: `Question ${label}` }, output: nestedLearnings(label) },
    tools,
    llm: {
      name: "Chat Completion",
      input: [
        { role: "system", content: "You are a support agent." },
        { role: "user", content: `Question ${label}` },
      ],
      output: { role: "assistant", content: `Answer ${label}` },
    },
  };
}

const spanIdOf = (label: string, index: number) => idOf(`${label}/span-${index}`, "uuid");
/** Span `n` of a trace starts n × 10 ms after its root, so the agent's steps have an order. */
const spanTimeOf = (rootTime: string, n: number) => new Date(Date.parse(rootTime) + n * 10).toISOString();

/** A generated trace's id in its provider's format, stable for its label: a UUID (Braintrust, LangSmith) or 32 hex digits (Langfuse). */
function idOf(label: string, format: "uuid" | "hex32"): string {
  const hex = createHash("sha256").update(label).digest("hex").slice(0, 32);
  if (format === "hex32") return hex;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Whether generated trace `index` has no user (it is held), and its user otherwise. */
const userOf = (shape: TrafficShape, index: number) => (shape.heldEvery && index % shape.heldEvery === shape.heldEvery - 1 ? null : `u-${index % 17}`);
const timeOf = (shape: TrafficShape, index: number) => new Date((shape.start + index * (shape.spacing ?? 1)) * 1000).toISOString();

/** Root spans in Braintrust's shape (one span per trace: the root, as project_logs lists it). */
export function braintrustTraffic(shape: TrafficShape): BraintrustData["events"] {
  const template = braintrust.events[0]!;
  return Array.from({ length: shape.count }, (_, index) => {
    const label = `${shape.idPrefix ?? "bt"}-${index}`;
    const id = idOf(label, "uuid");
    const user = userOf(shape, index);
    const root = {
      ...template,
      id,
      span_id: id,
      root_span_id: id,
      created: timeOf(shape, index),
      input: shape.nested ? { ticket: label } : [{ role: "user", content: `Question ${label}` }],
      output: shape.nested ? { status: "answered" } : [{ type: "text", text: `Answer ${label}` }],
      metadata: { ...(user !== null && { user_id: user }), env: "prod" },
      ...(shape.tags && { tags: shape.tags }),
    };
    if (!shape.nested) return [root as unknown as BraintrustData["events"][number]];
    const spans = nestedSpans(label, shape.nested);
    const child = (n: number, name: string, type: string, span: { input: unknown; output: unknown }) => ({
      ...root,
      id: spanIdOf(label, n),
      span_id: spanIdOf(label, n),
      span_parents: [id],
      is_root: false,
      created: spanTimeOf(root.created, n),
      input: span.input,
      output: span.output,
      metadata: {},
      tags: null,
      metrics: { start: 0, end: 0.2 },
      span_attributes: { name, type },
    });
    return [
      root,
      child(1, spans.retrieval.name, "function", spans.retrieval),
      ...spans.tools.map((tool, n) => child(2 + n, tool.name, "tool", tool)),
      child(2 + spans.tools.length, spans.llm.name, "llm", spans.llm),
    ] as unknown as BraintrustData["events"];
  }).flat();
}

export function braintrustData(events: BraintrustData["events"]): BraintrustData {
  return { keys: braintrust.keys, projects: braintrust.projects, events };
}

/** Traces in Langfuse's shape; nested ones' observations come from langfuseObservations. */
export function langfuseTraffic(shape: TrafficShape): LangfuseData["traces"] {
  return Array.from({ length: shape.count }, (_, index) => {
    const label = `${shape.idPrefix ?? "lf"}-${index}`;
    const id = idOf(label, "hex32");
    const user = userOf(shape, index);
    const at = timeOf(shape, index);
    return {
      id,
      timestamp: at,
      name: "chat",
      input: shape.nested ? { ticket: label } : { messages: [{ role: "user", content: `Question ${label}` }] },
      output: shape.nested ? { status: "answered" } : { role: "assistant", content: `Answer ${label}` },
      sessionId: `sess-${label}`,
      release: null,
      version: null,
      userId: user as string,
      metadata: { env: "prod" } as never,
      tags: [],
      public: false,
      environment: "default",
      htmlPath: `/project/${SYNTHETIC_PROJECTS.trace_provider_b}/traces/${id}`,
      latency: 1,
      totalCost: 0,
      observations: [],
      scores: [],
      createdAt: at,
      updatedAt: at,
      projectId: SYNTHETIC_PROJECTS.trace_provider_b,
      bookmarked: false,
    } as LangfuseData["traces"][number];
  });
}

/** The observations of nested Langfuse traffic (`shape.nested`): a RETRIEVER, TOOLs and a GENERATION per trace. */
export function langfuseObservations(shape: TrafficShape): LangfuseData["observations"] {
  if (!shape.nested) return [];
  const template = langfuse.observations[0]!;
  return Array.from({ length: shape.count }, (_, index) => {
    const label = `${shape.idPrefix ?? "lf"}-${index}`;
    const traceId = idOf(label, "hex32");
    const at = timeOf(shape, index);
    const spans = nestedSpans(label, shape.nested!);
    const observation = (n: number, type: string, span: { name: string; input: unknown; output: unknown }) => ({
      ...template,
      id: idOf(`${label}/span-${n}`, "hex32").slice(0, 16),
      traceId,
      type,
      name: span.name,
      startTime: spanTimeOf(at, n),
      endTime: spanTimeOf(at, n + 1),
      input: span.input,
      output: span.output,
      model: type === "GENERATION" ? template.model : null,
      parentObservationId: traceId.slice(0, 16),
    });
    return [
      observation(1, "RETRIEVER", spans.retrieval),
      ...spans.tools.map((tool, n) => observation(2 + n, "TOOL", tool)),
      observation(2 + spans.tools.length, "GENERATION", spans.llm),
    ];
  }).flat() as unknown as LangfuseData["observations"];
}

/** Root runs in LangSmith's shape, with their child runs when nested. */
export function langsmithTraffic(shape: TrafficShape): LangsmithData["runs"] {
  const template = langsmith.runs.find((run) => run.parent_run_id === null)!;
  return Array.from({ length: shape.count }, (_, index) => {
    const label = `${shape.idPrefix ?? "ls"}-${index}`;
    const id = idOf(label, "uuid");
    const user = userOf(shape, index);
    // LangSmith stores start_time without a zone (UTC).
    const start = timeOf(shape, index).replace("Z", "");
    const rootOrder = `${start.replace(/[-:.]/g, "")}000Z${id}`;
    const spans = shape.nested && nestedSpans(label, shape.nested);
    const children = spans
      ? [
          { name: spans.retrieval.name, run_type: "retriever", inputs: spans.retrieval.input, outputs: { documents: documentsOf(spans.retrieval.output) } },
          ...spans.tools.map((tool) => ({ name: tool.name, run_type: "tool", inputs: { input: tool.input }, outputs: { output: tool.output } })),
          { name: "ChatOpenAI", run_type: "llm", inputs: { messages: spans.llm.input }, outputs: { generations: [{ text: spans.llm.output.content }] } },
        ].map((child, n) => ({ ...child, id: spanIdOf(label, n + 1), start_time: spanTimeOf(`${start}Z`, n + 1).replace("Z", "") }))
      : [];
    const root = {
      ...template,
      id,
      trace_id: id,
      start_time: start,
      end_time: start,
      dotted_order: rootOrder,
      session_id: SYNTHETIC_PROJECTS.trace_provider_c,
      inputs: spans ? { ticket: label } : { messages: [{ role: "user", content: `Question ${label}` }] },
      outputs: spans ? { status: "answered" } : { output: `Answer ${label}` },
      extra: { metadata: { ...(user !== null && { user_id: user }), env: "prod" } as never },
      child_run_ids: children.map((child) => child.id),
    };
    return [
      root,
      ...children.map((child) => ({
        ...root,
        ...child,
        parent_run_id: id,
        end_time: child.start_time,
        dotted_order: `${rootOrder}.${child.start_time.replace(/[-:.]/g, "")}000Z${child.id}`,
        extra: { metadata: {} as never },
        tags: [],
        child_run_ids: [],
      })),
    ] as LangsmithData["runs"];
  }).flat();
}

/** Retrieved learnings as LangChain documents (a retriever's output), each naming its learning. */
const documentsOf = (learnings: ReturnType<typeof nestedLearnings>) =>
  learnings.map((learning) => ({ type: "Document", page_content: learning.content, metadata: { source: "agent-learning-service" }, ...learning }));
