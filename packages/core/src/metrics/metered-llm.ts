import type { Llm, LlmUsage } from "@als/ai";
import { Counter, type Registry } from "prom-client";

/** The counters of LLM calls on one registry. */
export interface LlmCallMetrics {
  calls: Counter<"stage" | "outcome">;
  tokens: Counter<"stage" | "direction">;
  cost: Counter<"stage">;
}

/**
 * The stage of a call is the name of the output schema the code asked for (`profile_extraction`,
 * `playbook_review`), or `query_reformulation` for the one free-text call: names chosen by the code,
 * never by a tenant. One that does not look like such a name is counted as `other`.
 */
export const stageOf = (schemaName: string) => (/^[a-z_]{1,48}$/.test(schemaName) ? schemaName : "other");
export const TEXT_STAGE = "query_reformulation";

/**
 * `llm`, each call counted by stage: calls by outcome, input and output tokens, and cost in USD as
 * the provider's usage and the model's price say (a model without a known price adds no cost).
 */
export function meteredLlm(llm: Llm, metrics: LlmCallMetrics): Llm {
  const counted = async <T extends { usage: LlmUsage }>(stage: string, call: Promise<T>): Promise<T> => {
    let result: T;
    try {
      result = await call;
    } catch (error) {
      metrics.calls.inc({ stage, outcome: "error" });
      throw error;
    }
    metrics.calls.inc({ stage, outcome: "ok" });
    metrics.tokens.inc({ stage, direction: "input" }, result.usage.inputTokens);
    metrics.tokens.inc({ stage, direction: "output" }, result.usage.outputTokens);
    if (result.usage.costUsd !== null) metrics.cost.inc({ stage }, result.usage.costUsd);
    return result;
  };
  return {
    provider: llm.provider,
    model: llm.model,
    inputTokens: llm.inputTokens,
    generateObject: (request) => counted(stageOf(request.schemaName), llm.generateObject(request)),
    generateText: (request) => counted(TEXT_STAGE, llm.generateText(request)),
  };
}

/** Registers the LLM call counters on `registry`. */
export const registerLlmCallMetrics = (registry: Registry): LlmCallMetrics => ({
  calls: new Counter({
    name: "als_llm_calls_total",
    help: "LLM calls by stage and outcome (an error after the provider's retries).",
    labelNames: ["stage", "outcome"] as const,
    registers: [registry],
  }),
  tokens: new Counter({
    name: "als_llm_tokens_total",
    help: "LLM tokens billed by stage and direction (input, output), retried replies included.",
    labelNames: ["stage", "direction"] as const,
    registers: [registry],
  }),
  cost: new Counter({
    name: "als_llm_cost_usd_total",
    help: "LLM cost in US dollars by stage, at the model's known price.",
    labelNames: ["stage"] as const,
    registers: [registry],
  }),
});
