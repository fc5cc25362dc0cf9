import { createHash } from "node:crypto";
import braintrust from "../../fixtures/trace-providers/braintrust.json";
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
    return {
      ...template,
      id,
      span_id: id,
      root_span_id: id,
      created: timeOf(shape, index),
      input: [{ role: "user", content: `Question ${label}` }],
      output: [{ type: "text", text: `Answer ${label}` }],
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
    const label = `${shape.idPrefix ?? "lf"}-${index}`;
    const id = idOf(label, "hex32");
    const user = userOf(shape, index);
    const at = timeOf(shape, index);
    return {
      id,
      timestamp: at,
      name: "chat",
      input: { messages: [{ role: "user", content: `Question ${label}` }] },
      output: { role: "assistant", content: `Answer ${label}` },
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
    };
  });
}

/** Root runs in LangSmith's shape. */
export function langsmithTraffic(shape: TrafficShape): LangsmithData["runs"] {
  const template = langsmith.runs.find((run) => run.parent_run_id === null)!;
  return Array.from({ length: shape.count }, (_, index) => {
    const label = `${shape.idPrefix ?? "ls"}-${index}`;
    const id = idOf(label, "uuid");
    const user = userOf(shape, index);
    // LangSmith stores start_time without a zone (UTC).
    const start = timeOf(shape, index).replace("Z", "");
    return {
      ...template,
      id,
      trace_id: id,
      start_time: start,
      end_time: start,
      dotted_order: `${start.replace(/[-:.]/g, "")}000Z${id}`,
      session_id: SYNTHETIC_PROJECTS.trace_provider_c,
      inputs: { messages: [{ role: "user", content: `Question ${label}` }] },
      outputs: { output: `Answer ${label}` },
      extra: { metadata: { ...(user !== null && { user_id: user }), env: "prod" } as never },
      child_run_ids: [],
    };
  });
}
