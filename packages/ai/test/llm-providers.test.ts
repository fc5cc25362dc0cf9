import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeLlmReply, type FakeLlmRequest, startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { z } from "zod";
import { costOf, createLlm, LlmOutputError, type LlmSettings, LlmStallError, LlmUnavailableError, renderPrompt } from "../src/index.ts";
import { type RenderPrompt, readPrompts } from "../src/llm/prompt-files.ts";

const API_KEY = "sk-test-key-that-must-never-leak";
const Profiles = z.object({ profiles: z.array(z.object({ content: z.string().min(1), time_to_live: z.enum(["one_day", "infinity"]) })) });
const reply: z.input<typeof Profiles> = { profiles: [{ content: "Is vegan", time_to_live: "infinity" }] };
const request = { system: "Extract the facts.", user: "I am vegan and live in Porto", schema: Profiles, schemaName: "profile_extraction" };

const server = await startFakeLlmServer(() => ({ json: reply }));
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
  server.setHandler(() => ({ json: reply }));
});

function llmFor(kind: LlmSettings["kind"], overrides: Partial<LlmSettings> = {}) {
  const model = kind === "anthropic" ? "claude-3-5-haiku-latest" : "gpt-4o-mini";
  return createLlm({ kind, model, baseUrl: server.baseUrl, apiKey: API_KEY, attempts: 3, baseDelayMs: 5, ...overrides });
}

/** Answers the planned replies in order, then the last one forever. */
function answer(...replies: FakeLlmReply[]) {
  let next = 0;
  server.setHandler(() => replies[Math.min(next++, replies.length - 1)]!);
}

/** Runs a call expected to fail and returns its error, checking that no message in its cause chain holds the key. */
async function failure(call: Promise<unknown>): Promise<Error> {
  const error = await call.then(
    () => {
      throw new Error("expected the call to fail");
    },
    (caught: unknown) => caught as Error,
  );
  for (let link: unknown = error; link instanceof Error; link = link.cause) {
    expect(link.message).not.toContain(API_KEY);
    expect(link.message).not.toContain("vegan");
  }
  return error;
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe("structured output", () => {
  test("OpenAI: json_schema response format, bearer key, reply validated by zod", async () => {
    const { value, usage } = await llmFor("openai").generateObject(request);
    expect(value).toEqual(reply);
    const [sent] = server.requests as [FakeLlmRequest];
    expect(sent.protocol).toBe("openai");
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.schemaName).toBe("profile_extraction");
    expect(sent.body.response_format.type).toBe("json_schema");
    expect(sent.body.response_format.json_schema.schema).toMatchObject({ type: "object", required: ["profiles"] });
    expect(sent.body.response_format.json_schema.schema.$schema).toBeUndefined();
    expect(sent.body.temperature).toBe(0);
    expect({ system: sent.system, user: sent.user }).toEqual({ system: request.system, user: request.user });
    expect(usage.model).toBe("gpt-4o-mini");
  });

  test("Anthropic: one forced tool whose input is the reply, key and version headers", async () => {
    const { value } = await llmFor("anthropic").generateObject(request);
    expect(value).toEqual(reply);
    const [sent] = server.requests as [FakeLlmRequest];
    expect(sent.protocol).toBe("anthropic");
    expect(sent.headers).toEqual({ "x-api-key": API_KEY, "anthropic-version": "2023-06-01" });
    expect(sent.body.tool_choice).toEqual({ type: "tool", name: "profile_extraction" });
    expect(sent.body.tools).toHaveLength(1);
    expect(sent.body.tools[0].input_schema).toMatchObject({ type: "object", required: ["profiles"] });
    expect(sent.body.max_tokens).toBeGreaterThan(0);
    expect(sent.system).toBe(request.system);
  });

  for (const kind of ["openai", "anthropic"] as const) {
    test(`${kind}: a reply that does not match the schema is retried, then LlmOutputError`, async () => {
      answer({ json: { profiles: [{ content: "", time_to_live: "forever" }] } });
      const error = await failure(llmFor(kind).generateObject(request));
      expect(error).toBeInstanceOf(LlmOutputError);
      expect(server.requests).toHaveLength(3);
    });

    test(`${kind}: an invalid reply followed by a valid one succeeds, and usage counts both`, async () => {
      answer({ text: "Sure! Here are the facts you asked for" }, { json: reply });
      const { value, usage } = await llmFor(kind).generateObject(request);
      expect(value).toEqual(reply);
      expect(server.requests).toHaveLength(2);
      const input = 2 * (words(request.system) + words(request.user));
      expect(usage.inputTokens).toBe(input);
      expect(usage.outputTokens).toBe(words("Sure! Here are the facts you asked for") + words(JSON.stringify(reply)));
    });
  }

  test("openai-compatible: a 400 to json_schema falls back to json_object with the schema in the system message", async () => {
    server.setHandler((sent) =>
      sent.body.response_format?.type === "json_schema"
        ? { status: 400, error: { type: "invalid_request_error", message: "response_format json_schema is not supported" } }
        : { json: reply },
    );
    const llm = llmFor("openai-compatible", { model: "llama3.1:8b" });
    expect((await llm.generateObject(request)).value).toEqual(reply);
    const [refused, fallback] = server.requests as [FakeLlmRequest, FakeLlmRequest];
    expect(refused.body.response_format.type).toBe("json_schema");
    expect(fallback.body.response_format).toEqual({ type: "json_object" });
    expect(fallback.system).toStartWith(request.system);
    expect(fallback.system).toContain('"time_to_live"');

    // The server's answer is remembered: later calls go straight to json_object.
    server.requests.length = 0;
    await llm.generateObject(request);
    expect(server.requests.map((sent) => sent.body.response_format.type)).toEqual(["json_object"]);
  });

  test("text generation over both protocols", async () => {
    answer({ text: "vegan restaurants in Porto" });
    for (const kind of ["openai", "anthropic"] as const) {
      const { text, usage } = await llmFor(kind).generateText({ system: "Rewrite the query.", user: "where can I eat" });
      expect(text).toBe("vegan restaurants in Porto");
      expect(usage).toMatchObject({ inputTokens: 7, outputTokens: 4 });
    }
    expect(server.requests.map((sent) => sent.schemaName)).toEqual([null, null]);
  });
});

describe("transient failures are retried", () => {
  test("a 500 then success", async () => {
    answer({ status: 500, error: { type: "server_error", message: "boom" } }, { json: reply });
    expect((await llmFor("openai").generateObject(request)).value).toEqual(reply);
    expect(server.requests).toHaveLength(2);
  });

  test("a 429 waits for its retry-after before the next attempt", async () => {
    answer({ status: 429, error: { type: "rate_limit_error", message: "slow down" }, headers: { "retry-after": "1" } }, { json: reply });
    const started = performance.now();
    await llmFor("anthropic").generateObject(request);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.requests).toHaveLength(2);
  });

  test("an OpenAI rate limit whose message points at the billing page is a rate limit, not a billing stall", async () => {
    const message = "Rate limit reached for requests. Visit https://platform.openai.com/account/billing to add a payment method.";
    answer({ status: 429, error: { type: "requests", code: "rate_limit_exceeded", message } }, { json: reply });
    expect((await llmFor("openai").generateObject(request)).value).toEqual(reply);
    expect(server.requests).toHaveLength(2);
  });

  test("an attempt that outlives the timeout is retried", async () => {
    let calls = 0;
    server.setHandler(async () => {
      if (++calls === 1) await Bun.sleep(500);
      return { json: reply };
    });
    expect((await llmFor("openai", { timeoutMs: 150 }).generateObject(request)).value).toEqual(reply);
    expect(calls).toBe(2);
  });

  test("when the attempts run out: LlmUnavailableError naming the status and code", async () => {
    answer({ status: 503, error: { type: "overloaded_error", message: "overloaded" } });
    const error = await failure(llmFor("anthropic").generateText({ system: "s", user: "u" }));
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.message).toContain("503 (overloaded_error)");
    expect(server.requests).toHaveLength(3);
  });

  test("an unreachable server: LlmUnavailableError after the attempts", async () => {
    const gone = await startFakeLlmServer(() => ({ json: reply }));
    await gone.close();
    const llm = createLlm({ kind: "openai", model: "gpt-4o-mini", baseUrl: gone.baseUrl, apiKey: API_KEY, attempts: 2, baseDelayMs: 5 });
    expect(await failure(llm.generateObject(request))).toBeInstanceOf(LlmUnavailableError);
  });

  test("the caller's abort ends the call without further attempts", async () => {
    server.setHandler(async () => {
      await Bun.sleep(2_000);
      return { json: reply };
    });
    const call = llmFor("openai").generateObject({ ...request, signal: AbortSignal.timeout(100) });
    const error = await failure(call);
    expect(error.name).toBe("TimeoutError");
    expect(server.requests).toHaveLength(1);
  });
});

describe("failures that are not retried", () => {
  test("401: an auth stall after one request, without the key the provider echoed", async () => {
    answer({ status: 401, error: { type: "invalid_request_error", code: "invalid_api_key", message: `Incorrect API key provided: ${API_KEY}` } });
    const error = await failure(llmFor("openai").generateObject(request));
    expect(error).toBeInstanceOf(LlmStallError);
    expect((error as LlmStallError).kind).toBe("auth");
    expect(error.message).toContain("401 (invalid_api_key)");
    expect(server.requests).toHaveLength(1);
  });

  test("403 from Anthropic: an auth stall", async () => {
    answer({ status: 403, error: { type: "permission_error", message: "Your API key does not have permission" } });
    const error = await failure(llmFor("anthropic").generateText({ system: "s", user: "u" }));
    expect(error).toMatchObject({ name: "LlmStallError", kind: "auth" });
    expect(server.requests).toHaveLength(1);
  });

  const billing: [string, LlmSettings["kind"], FakeLlmReply][] = [
    ["402", "openai", { status: 402, error: { message: "Payment required" } }],
    [
      "429 insufficient_quota",
      "openai",
      { status: 429, error: { type: "insufficient_quota", code: "insufficient_quota", message: "You exceeded your current quota" } },
    ],
    [
      "Anthropic's 400 about the credit balance",
      "anthropic",
      { status: 400, error: { type: "invalid_request_error", message: "Your credit balance is too low" } },
    ],
  ];
  for (const [what, kind, planned] of billing) {
    test(`${what}: a billing stall after one request`, async () => {
      answer(planned);
      const error = await failure(llmFor(kind).generateObject(request));
      expect(error).toBeInstanceOf(LlmStallError);
      expect((error as LlmStallError).kind).toBe("billing");
      expect(server.requests).toHaveLength(1);
    });
  }

  test("another 4xx: LlmUnavailableError at once, with the status and code but not the provider's text", async () => {
    answer({ status: 400, error: { type: "invalid_request_error", code: "context_length_exceeded", message: `your prompt: ${request.user}` } });
    const error = await failure(llmFor("openai").generateObject(request));
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.message).toContain("400 (context_length_exceeded)");
    expect(server.requests).toHaveLength(1);
  });
});

describe("usage and cost", () => {
  test("a priced model's cost follows its tokens; an unknown model's cost is null", async () => {
    const { usage } = await llmFor("openai").generateObject(request);
    const inputTokens = words(request.system) + words(request.user);
    const outputTokens = words(JSON.stringify(reply));
    expect(usage).toEqual({ model: "gpt-4o-mini", inputTokens, outputTokens, costUsd: (inputTokens * 0.15 + outputTokens * 0.6) / 1e6 });

    const local = await llmFor("openai-compatible", { model: "qwen2.5:7b" }).generateObject(request);
    expect(local.usage).toMatchObject({ model: "qwen2.5:7b", inputTokens, outputTokens, costUsd: null });
  });

  test("prices match the longest model prefix", () => {
    expect(costOf("gpt-4o-mini-2024-07-18", 1e6, 0)).toBe(0.15);
    expect(costOf("gpt-4o-2024-08-06", 1e6, 0)).toBe(2.5);
    expect(costOf("claude-sonnet-4-20250514", 0, 1e6)).toBe(15);
    expect(costOf("claude-3-5-haiku-latest", 1e6, 1e6)).toBe(4.8);
    expect(costOf("llama3.1", 1e6, 1e6)).toBeNull();
  });

  test("reasoning models are sent no temperature, which they refuse", async () => {
    await llmFor("openai", { model: "gpt-5-mini" }).generateText({ system: "s", user: "u" });
    expect((server.requests[0] as FakeLlmRequest).body).not.toHaveProperty("temperature");
  });
});

describe("prompts", () => {
  const scratch = mkdtempSync(join(tmpdir(), "als-prompts-"));
  let render: RenderPrompt;
  beforeAll(() => {
    mkdirSync(join(scratch, "versions"));
    writeFileSync(join(scratch, "versions/v1.md"), "# system\nOld {{a}}.\n# user\n{{b}}\n");
    writeFileSync(join(scratch, "versions/v2.md"), "# system\nNew {{a}}.\n\n# user\nSay {{b}}, not {{a}}.\n");
    writeFileSync(join(scratch, "versions/notes.txt"), "not a version");
    render = readPrompts(scratch);
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  test("renders the highest version unless one is pinned, filling every placeholder", () => {
    expect(render("versions", { a: "x", b: "{{a}}" })).toEqual({ id: "versions@v2", system: "New x.", user: "Say {{a}}, not x." });
    expect(render("versions", { a: "x", b: "y" }, 1)).toEqual({ id: "versions@v1", system: "Old x.", user: "y" });
  });

  test("a missing or an unused variable throws, as do an unknown prompt and version", () => {
    expect(() => render("versions", { a: "x" })).toThrow("b");
    expect(() => render("versions", { a: "x", b: "y", c: "z" })).toThrow("c");
    expect(() => render("versions", { a: "x", b: "y" }, 3)).toThrow("no version 3 of prompt versions");
    expect(() => render("elsewhere", {})).toThrow("no versions of prompt elsewhere");
  });

  test("a prompt file without both sections is refused when the prompts are read", () => {
    mkdirSync(join(scratch, "broken"));
    writeFileSync(join(scratch, "broken/v1.md"), "# system\nOnly a system part.\n");
    expect(() => readPrompts(scratch)).toThrow("prompt broken@v1 needs a '# system' and a '# user' section");
  });

  test("the product's prompts render with the variables their callers pass", () => {
    const rendered = [
      renderPrompt("profile-extraction", { definition: "d", context: "", existing: "- [p1] Is vegan", transcript: "user: hi" }),
      renderPrompt("playbook-extraction", { definition: "d", context: "", existing: "", transcript: "user: hi" }),
      renderPrompt("learning-deduplication", { kind: "profile", candidates: "0. Is vegan", existing: "- [p1] Is vegan" }),
      renderPrompt("query-reformulation", { query: "and in Porto?", conversation: "" }),
      renderPrompt("playbook-aggregation", { definition: "d", approved: "(none)", members: "1. trigger: t" }),
      renderPrompt("playbook-review", { trigger: "t", content: "c", rationale: "r", transcript: "user: hi" }),
    ];
    expect(rendered.map((prompt) => prompt.id)).toEqual([
      "profile-extraction@v2",
      "playbook-extraction@v2",
      "learning-deduplication@v1",
      "query-reformulation@v1",
      "playbook-aggregation@v1",
      "playbook-review@v2",
    ]);
    for (const prompt of rendered) expect(`${prompt.system}${prompt.user}`).not.toContain("{{");
  });
});
