import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  createTraceProvider,
  type ProviderName,
  readSupportingSpans,
  SUPPORTING_SPAN_BYTES,
  SUPPORTING_SPAN_LIMIT,
  SUPPORTING_SPAN_READ_LIMIT,
  supportingContextOf,
  type TraceProvider,
} from "@als/sources";
import { BRAINTRUST_KEY, startBraintrustServer } from "@als/test-support/trace-providers/braintrust-server.ts";
import { LANGFUSE_KEYS, startLangfuseServer } from "@als/test-support/trace-providers/langfuse-server.ts";
import { LANGSMITH_KEY, startLangsmithServer } from "@als/test-support/trace-providers/langsmith-server.ts";
import type { ProviderServer } from "@als/test-support/trace-providers/provider-server.ts";
import {
  braintrustData,
  braintrustTraffic,
  langfuseObservations,
  langfuseTraffic,
  langsmithTraffic,
  SYNTHETIC_PROJECTS,
  type TrafficShape,
} from "@als/test-support/trace-providers/synthetic-traffic.ts";
import braintrust from "../../../test/fixtures/trace-providers/braintrust.json";
import langfuse from "../../../test/fixtures/trace-providers/langfuse.json";
import langsmith from "../../../test/fixtures/trace-providers/langsmith.json";

describe("the supporting context of a fixture trace (an agent that retrieved articles, called a tool and answered)", () => {
  const cases: [ProviderName, string, Record<string, unknown>[]][] = [
    [
      "trace_provider_a",
      "5e1f0a00-0000-4000-8000-000000000010",
      braintrust.events.filter((event) => event.root_span_id === "5e1f0a00-0000-4000-8000-000000000010"),
    ],
    ["trace_provider_b", "a1b2c3d4e5f60718", langfuse.observations.filter((item) => item.traceId === "a1b2c3d4e5f60718293a4b5c6d7e8f01")],
    ["trace_provider_c", "1f0b5a3c-0000-4000-8000-000000000010", langsmith.runs.filter((run) => run.trace_id === "1f0b5a3c-0000-4000-8000-000000000010")],
  ];
  test.each(cases)("%s: the LLM call's dialogue, the retrieval and the tool call", (provider, rootId, spans) => {
    const context = supportingContextOf(provider, rootId, spans);
    expect(context).toMatchObject({
      last_user_message: "How do I reset my password?",
      final_answer: "Open Settings, then Security, then Reset password.",
      spans_read: 3,
      spans_kept: 3,
      truncated: false,
    });
    expect(context.llm_calls).toHaveLength(1);
    expect(context.conversation.at(-1)).toEqual({ role: "assistant", content: "Open Settings, then Security, then Reset password." });
    expect(context.tools.map((tool) => [tool.tool_name, tool.tool_data.kind, tool.status])).toEqual(
      expect.arrayContaining([
        ["retrieve_articles", "retrieval", "success"],
        ["lookup_account", "tool", "success"],
      ]),
    );
    expect(context.retrievals.map((retrieval) => retrieval.name)).toEqual(["retrieve_articles"]);
  });

  test("no spans: an empty context, nothing truncated", () => {
    expect(supportingContextOf("trace_provider_c", "r", [])).toMatchObject({
      conversation: [],
      final_answer: null,
      tools: [],
      spans_read: 0,
      truncated: false,
    });
  });
});

describe("a trace's context is bounded", () => {
  const span = (n: number, type: string, output: unknown = { ok: true }) => ({
    id: `s${n}`,
    run_type: type,
    name: `${type}-${n}`,
    start_time: new Date(Date.UTC(2026, 10, 1, 10, 0, 0, n)).toISOString(),
    inputs: { messages: [{ role: "user", content: `question ${n}` }] },
    outputs: output,
  });

  test(`over ${SUPPORTING_SPAN_LIMIT} spans: the LLM call and the retrieval are kept, tool calls up to the limit, in start order`, () => {
    const spans = [
      span(0, "retriever"),
      ...Array.from({ length: 70 }, (_, n) => span(n + 1, "tool")),
      span(71, "llm", { generations: [{ text: "the answer" }] }),
    ];
    const context = supportingContextOf("trace_provider_c", "root", spans);
    expect(context).toMatchObject({ spans_read: 72, spans_kept: SUPPORTING_SPAN_LIMIT, truncated: true, final_answer: "the answer" });
    expect(context.tools[0]!.tool_name).toBe("retriever-0");
    expect(context.tools.at(-1)!.tool_name).toBe(`tool-${SUPPORTING_SPAN_LIMIT - 2}`);
  });

  test(`over ${SUPPORTING_SPAN_BYTES} bytes: a span that does not fit is left out, smaller ones after it are kept`, () => {
    const big = { output: "x".repeat(Math.ceil(SUPPORTING_SPAN_BYTES * 0.6)) };
    const context = supportingContextOf("trace_provider_c", "root", [span(1, "tool", big), span(2, "tool", big), span(3, "tool"), span(4, "llm", "fine")]);
    expect(context.tools.map((tool) => tool.tool_name)).toEqual(["tool-1", "tool-3"]);
    expect(context).toMatchObject({ spans_read: 4, spans_kept: 3, truncated: true, final_answer: "fine" });
  });

  test("messages in the shapes LLM calls record them: OpenAI choices, LangChain human/ai, content blocks", () => {
    const llm = (inputs: unknown, outputs: unknown) =>
      supportingContextOf("trace_provider_c", "root", [{ id: "l", run_type: "llm", name: "llm", inputs, outputs }]);
    expect(llm([{ type: "human", content: "hi" }], { choices: [{ message: { role: "assistant", content: "hello" } }] })).toMatchObject({
      last_user_message: "hi",
      final_answer: "hello",
    });
    expect(llm({ messages: [[{ role: "user", content: [{ type: "text", text: "a" }, { type: "image_url" }] }]] }, "b")).toMatchObject({
      last_user_message: "a",
      final_answer: "b",
    });
    expect(llm({ prompt: 1 }, null)).toMatchObject({ last_user_message: null, final_answer: null });
  });
});

describe("reading a trace's spans over HTTP stops at the read limit, per provider", () => {
  const MANY: TrafficShape = { start: Date.UTC(2026, 10, 1) / 1000, count: 1, nested: { tools: SUPPORTING_SPAN_READ_LIMIT + 20 }, idPrefix: "many" };
  const servers: ProviderServer[] = [];
  const adapters = {} as Record<ProviderName, TraceProvider>;
  beforeAll(async () => {
    const a = await startBraintrustServer(braintrustData(braintrustTraffic(MANY)));
    const b = await startLangfuseServer({ traces: langfuseTraffic(MANY), observations: langfuseObservations(MANY) });
    const c = await startLangsmithServer({ runs: langsmithTraffic(MANY) });
    servers.push(a, b, c);
    const now = () => Math.floor(Date.now() / 1000);
    adapters.trace_provider_a = createTraceProvider({ provider: "trace_provider_a", region: "us", baseUrl: a.url }, { api_key: BRAINTRUST_KEY }, now);
    adapters.trace_provider_b = createTraceProvider(
      { provider: "trace_provider_b", region: "us", baseUrl: b.url },
      { api_key: LANGFUSE_KEYS.secret_key, public_key: LANGFUSE_KEYS.public_key },
      now,
    );
    adapters.trace_provider_c = createTraceProvider({ provider: "trace_provider_c", region: "us", baseUrl: c.url }, { api_key: LANGSMITH_KEY }, now);
  });
  afterAll(() => Promise.all(servers.map((server) => server.close())));

  test.each(["trace_provider_a", "trace_provider_b", "trace_provider_c"] as const)("%s", async (provider) => {
    const adapter = adapters[provider];
    const page = await adapter.pageTraces({
      external_project_id: SYNTHETIC_PROJECTS[provider],
      start: MANY.start,
      end: MANY.start + 60,
      filters: [],
      cursor: null,
      limit: 10,
    });
    expect(page.traces).toHaveLength(1);
    const context = await readSupportingSpans(adapter, provider, SYNTHETIC_PROJECTS[provider], page.traces[0]!);
    expect(context).toMatchObject({ spans_read: SUPPORTING_SPAN_READ_LIMIT, spans_kept: SUPPORTING_SPAN_LIMIT, truncated: true });
    // Langfuse lists newest first: the answer is read; the others list oldest first and keep the retrieval.
    if (provider === "trace_provider_b") expect(context.final_answer).toBe("Answer many-0");
    else expect(context.retrievals).toHaveLength(1);
  });
});
