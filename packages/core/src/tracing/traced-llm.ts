import type { Llm, LlmUsage } from "@als/ai";
import { inSpan } from "@als/telemetry";
import { stageOf, TEXT_STAGE } from "../metrics/metered-llm.ts";

/**
 * `llm`, each call in a span following OpenTelemetry's GenAI conventions: the operation (`chat`),
 * the provider, the model asked for and the one that answered, the tokens billed, and our stage
 * (the output schema's name, chosen by the code). Never the prompt or the completion: they are
 * tenant content.
 */
export function tracedLlm(llm: Llm): Llm {
  const traced = <T extends { usage: LlmUsage }>(stage: string, call: () => Promise<T>): Promise<T> =>
    inSpan(
      `chat ${llm.model}`,
      { "gen_ai.operation.name": "chat", "gen_ai.system": llm.provider, "gen_ai.request.model": llm.model, "als.llm.stage": stage },
      call,
      ({ usage }) => ({
        "gen_ai.response.model": usage.model,
        "gen_ai.usage.input_tokens": usage.inputTokens,
        "gen_ai.usage.output_tokens": usage.outputTokens,
      }),
    );
  return {
    provider: llm.provider,
    model: llm.model,
    inputTokens: llm.inputTokens,
    generateObject: (request) => traced(stageOf(request.schemaName), () => llm.generateObject(request)),
    generateText: (request) => traced(TEXT_STAGE, () => llm.generateText(request)),
  };
}
