import type { z } from "zod";
import type { InputTokens } from "./input-tokens.ts";
import type { Llm, LlmObjectRequest, LlmTextRequest, LlmUsage } from "./llm.ts";
import { type LlmHttpOptions, postJson, withLlmRetries } from "./llm-http.ts";
import { costOf } from "./llm-prices.ts";
import { asOutputError, jsonSchemaOf, validated } from "./structured-output.ts";

interface MessagesReply {
  content?: ({ type: "text"; text: string } | { type: "tool_use"; name: string; input: unknown })[];
  usage?: { input_tokens?: number; output_tokens?: number };
}

const ANTHROPIC_VERSION = "2023-06-01";
const MAX_TOKENS = 4096;

/** Anthropic's messages API. Structured output is one forced tool whose input schema is the answer's. */
export class AnthropicMessagesProvider implements Llm {
  readonly provider = "anthropic" as const;

  constructor(
    readonly model: string,
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly http: LlmHttpOptions,
    readonly inputTokens: InputTokens,
  ) {}

  async generateObject<S extends z.ZodType>(request: LlmObjectRequest<S>): Promise<{ value: z.output<S>; usage: LlmUsage }> {
    const usage = this.usageOf(undefined);
    const tool = { name: request.schemaName, description: "Record the answer.", input_schema: jsonSchemaOf(request.schema) };
    try {
      const value = await withLlmRetries(async () => {
        const reply = await this.post(
          { system: request.system, messages: [{ role: "user", content: request.user }], tools: [tool], tool_choice: { type: "tool", name: tool.name } },
          request.signal,
        );
        this.add(usage, reply);
        const call = reply.content?.find((block) => block.type === "tool_use");
        return validated(request.schema, call?.type === "tool_use" ? call.input : undefined);
      }, this.http);
      return { value, usage };
    } catch (error) {
      throw asOutputError(error);
    }
  }

  async generateText(request: LlmTextRequest): Promise<{ text: string; usage: LlmUsage }> {
    const reply = await withLlmRetries(
      () => this.post({ system: request.system, messages: [{ role: "user", content: request.user }] }, request.signal),
      this.http,
    );
    const text = (reply.content ?? []).flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
    return { text, usage: this.usageOf(reply) };
  }

  private async post(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<MessagesReply> {
    const headers = { "x-api-key": this.apiKey, "anthropic-version": ANTHROPIC_VERSION };
    return (await postJson(
      `${this.baseUrl}/messages`,
      headers,
      { model: this.model, max_tokens: MAX_TOKENS, temperature: 0, ...body },
      this.http.timeoutMs,
      signal,
    )) as MessagesReply;
  }

  private usageOf(reply: MessagesReply | undefined): LlmUsage {
    const usage: LlmUsage = { model: this.model, inputTokens: 0, outputTokens: 0, costUsd: null };
    if (reply) this.add(usage, reply);
    else usage.costUsd = costOf(this.model, 0, 0);
    return usage;
  }

  private add(usage: LlmUsage, reply: MessagesReply): void {
    usage.inputTokens += reply.usage?.input_tokens ?? 0;
    usage.outputTokens += reply.usage?.output_tokens ?? 0;
    usage.costUsd = costOf(this.model, usage.inputTokens, usage.outputTokens);
  }
}
