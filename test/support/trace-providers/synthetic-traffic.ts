import braintrust from "../../fixtures/trace-providers/braintrust.json";
import langsmith from "../../fixtures/trace-providers/langsmith.json";
import type { BraintrustData } from "./braintrust-server.ts";
import type { LangfuseData } from "./langfuse-server.ts";
import type { LangsmithData } from "./langsmith-server.ts";

/** The external project each provider's generated traffic belongs to (the fixtures' support projects). */
export const SYNTHETIC_PROJECTS = {
  trace_provider_a: "0b1e5c2a-support",
  trace_provider_b: "lf-proj-1",
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
}

/** Whether generated trace `index` has no user (it is held), and its user otherwise. */
const userOf = (shape: TrafficShape, index: number) => (shape.heldEvery && index % shape.heldEvery === shape.heldEvery - 1 ? null : `u-${index % 17}`);
const timeOf = (shape: TrafficShape, index: number) => new Date((shape.start + index * (shape.spacing ?? 1)) * 1000).toISOString();

/** Root spans in Braintrust's shape (one span per trace: the root, as project_logs lists it). */
export function braintrustTraffic(shape: TrafficShape): BraintrustData["events"] {
  const template = braintrust.events[0]!;
  return Array.from({ length: shape.count }, (_, index) => {
    const id = `${shape.idPrefix ?? "bt"}-${index}`;
    const user = userOf(shape, index);
    return {
      ...template,
      id,
      span_id: id,
      root_span_id: id,
      created: timeOf(shape, index),
      input: [{ role: "user", content: `Question ${id}` }],
      output: [{ type: "text", text: `Answer ${id}` }],
      metadata: { ...(user !== null && { user_id: user }), env: "prod" },
      ...(shape.tags && { tags: shape.tags }),
    } as unknown as BraintrustData["events"][number];
  });
}

export function braintrustData(events: BraintrustData["events"]): BraintrustData {
  return { keys: braintrust.keys, projects: braintrust.projects, events };
}

/** Traces in Langfuse's shape (no observations: the collection reads root records only). */
export function langfuseTraffic(shape: TrafficShape): LangfuseData["traces"] {
  return Array.from({ length: shape.count }, (_, index) => {
    const id = `${shape.idPrefix ?? "lf"}-${index}`;
    const user = userOf(shape, index);
    const at = timeOf(shape, index);
    return {
      id,
      timestamp: at,
      name: "chat",
      input: { messages: [{ role: "user", content: `Question ${id}` }] },
      output: { role: "assistant", content: `Answer ${id}` },
      sessionId: `sess-${id}`,
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
    };
  });
}

/** Root runs in LangSmith's shape. */
export function langsmithTraffic(shape: TrafficShape): LangsmithData["runs"] {
  const template = langsmith.runs.find((run) => run.parent_run_id === null)!;
  return Array.from({ length: shape.count }, (_, index) => {
    const id = `${shape.idPrefix ?? "ls"}-${index}`;
    const user = userOf(shape, index);
    return {
      ...template,
      id,
      trace_id: id,
      // LangSmith's start_time carries no zone (UTC).
      start_time: timeOf(shape, index).replace("Z", ""),
      end_time: timeOf(shape, index).replace("Z", ""),
      session_id: SYNTHETIC_PROJECTS.trace_provider_c,
      inputs: { messages: [{ role: "user", content: `Question ${id}` }] },
      outputs: { output: `Answer ${id}` },
      extra: { metadata: { ...(user !== null && { user_id: user }), env: "prod" } as never },
      child_run_ids: [],
    };
  });
}
