import { afterAll, expect, test } from "bun:test";
import { createLlm } from "@als/ai";
import { tracedLlm } from "@als/core";
import { startTracing } from "@als/telemetry/start-tracing";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { startOtlpReceiver } from "@als/test-support/otlp-receiver.ts";
import { z } from "zod";

const receiver = await startOtlpReceiver();
const PROMPT = "The user keeps six hives of bees on the roof";
const COMPLETION = "Beekeeper with rooftop hives";
const server = await startFakeLlmServer((request) => (request.schemaName ? { json: { summary: COMPLETION } } : { text: COMPLETION }));
afterAll(async () => {
  await server.close();
  await receiver.close();
});

test("an LLM call is a span with the GenAI conventions' operation, model and tokens, and neither the prompt nor the completion", async () => {
  const tracing = startTracing({ url: `${receiver.endpoint}/v1/traces`, headers: {}, sampler: "always_on", samplerRatio: 1 }, "unit");
  const llm = tracedLlm(createLlm({ kind: "openai", model: "gpt-4o-mini", baseUrl: server.baseUrl, apiKey: "sk-test-secret-key", attempts: 1 }));
  const object = await llm.generateObject({ system: "Summarise.", user: PROMPT, schema: z.object({ summary: z.string() }), schemaName: "profile_extraction" });
  expect(object.value.summary).toBe(COMPLETION);
  await llm.generateText({ system: "Rewrite.", user: PROMPT });
  await tracing.shutdown();
  const spans = await receiver.waitFor((all) => all.length >= 2);
  const [extraction, text] = [
    spans.find((span) => span.attributes["als.llm.stage"] === "profile_extraction")!,
    spans.find((span) => span.attributes["als.llm.stage"] === "query_reformulation")!,
  ];
  expect(extraction.name).toBe("chat gpt-4o-mini");
  expect(extraction.attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.system": "openai",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.usage.input_tokens": object.usage.inputTokens,
    "gen_ai.usage.output_tokens": object.usage.outputTokens,
  });
  expect(object.usage.inputTokens).toBeGreaterThan(0);
  expect(text.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
  const exported = receiver.bodies.join("\n");
  for (const secret of ["hives", "Beekeeper", "sk-test-secret-key", "Summarise"]) expect(exported).not.toContain(secret);
});
