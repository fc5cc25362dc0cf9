import { describe, expect, test } from "bun:test";
import { inputTokensOf } from "../src/llm/input-tokens.ts";

const PROSE = "The user said they prefer short answers and asked for a vegan dinner recipe with chickpeas. ".repeat(20);

describe("input tokens of a model", () => {
  test("an OpenAI model is counted with its own tokenizer, and its context window is known", () => {
    const tokens = inputTokensOf("openai", "gpt-4o-mini");
    expect(tokens.exact).toBe(true);
    expect(tokens.count("hello world")).toBe(2);
    expect(tokens.contextWindow).toBe(128_000);
    expect(inputTokensOf("openai", "gpt-3.5-turbo").count("hello world")).toBe(2);
  });

  test("elsewhere the estimate is conservative: never below the real tokenizer's count for prose or JSON", () => {
    const exact = inputTokensOf("openai", "gpt-4o").count;
    const estimated = inputTokensOf("anthropic", "claude-3-5-haiku-latest");
    expect(estimated.exact).toBe(false);
    expect(estimated.contextWindow).toBe(200_000);
    for (const text of [PROSE, JSON.stringify({ rows: Array.from({ length: 50 }, (_, i) => ({ id: i, name: `item ${i}` })) }), "naïve café — 東京"]) {
      expect(estimated.count(text)).toBeGreaterThanOrEqual(exact(text));
    }
  });

  test("an unknown model has no context window unless the settings give one", () => {
    expect(inputTokensOf("openai-compatible", "local-llama").contextWindow).toBeNull();
    expect(inputTokensOf("openai-compatible", "local-llama", 32_768).contextWindow).toBe(32_768);
  });
});
