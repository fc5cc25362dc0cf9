import type { z } from "zod";
import type { InputTokens } from "./input-tokens.ts";
import { type Llm, type LlmObjectRequest, type LlmTextRequest, LlmUnavailableError, type LlmUsage } from "./llm.ts";
import { type LlmHttpOptions, postJson, withLlmRetries } from "./llm-http.ts";
import { costOf } from "./llm-prices.ts";
import { asOutputError, jsonSchemaOf, parseJsonReply, validated } from "./structured-output.ts";

interface ChatCompletion {
  choices?: { message?: { content?: string | null } }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

const REASONING_MODEL = /^(o\d|gpt-5)/;

/**
 * OpenAI's chat completions, and any server speaking them (Ollama, vLLM). Structured output asks for
 * `json_schema`; a compatible server that refuses it (400) is asked for `json_object` with the
 * schema spelled out in the system message instead, and the reply is validated either way.
 */
export class OpenAiChatProvider implements Llm {
  private jsonSchemaRefused = false;

  constructor(
    readonly provider: "openai" | "openai-compatible",
    readonly model: string,
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
    private readonly http: LlmHttpOptions,
    readonly inputTokens: InputTokens,
  ) {}

  async generateObject<S extends z.ZodType>(request: LlmObjectRequest<S>): Promise<{ value: z.output<S>; usage: LlmUsage }> {
    const usage = this.emptyUsage();
    const schema = jsonSchemaOf(request.schema);
    try {
      const value = await withLlmRetries(async () => {
        const completion = await this.complete(request, schema).catch(async (error: unknown) => {
          if (this.provider !== "openai-compatible" || this.jsonSchemaRefused || !(error instanceof LlmUnavailableError) || !error.message.includes(" 400 "))
            throw error;
          this.jsonSchemaRefused = true;
          return this.complete(request, schema);
        });
        this.add(usage, completion);
        return validated(request.schema, parseJsonReply(completion.choices?.[0]?.message?.content ?? ""));
      }, this.http);
      return { value, usage };
    } catch (error) {
      throw asOutputError(error);
    }
  }

  async generateText(request: LlmTextRequest): Promise<{ text: string; usage: LlmUsage }> {
    const completion = await withLlmRetries(() => this.post({ messages: this.messages(request.system, request.user) }, request.signal), this.http);
    const usage = this.emptyUsage();
    this.add(usage, completion);
    return { text: completion.choices?.[0]?.message?.content ?? "", usage };
  }

  private complete(request: LlmObjectRequest<z.ZodType>, schema: Record<string, unknown>): Promise<ChatCompletion> {
    if (this.jsonSchemaRefused) {
      const system = `${request.system}\n\nAnswer with one JSON object matching this JSON Schema:\n${JSON.stringify(schema)}`;
      return this.post({ messages: this.messages(system, request.user), response_format: { type: "json_object" } }, request.signal);
    }
    return this.post(
      {
        messages: this.messages(request.system, request.user),
        response_format: { type: "json_schema", json_schema: { name: request.schemaName, schema, strict: false } },
      },
      request.signal,
    );
  }

  private async post(body: Record<string, unknown>, signal: AbortSignal | undefined): Promise<ChatCompletion> {
    const headers: Record<string, string> = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
    // Reasoning models (o1, o3, o4-mini, gpt-5...) refuse any temperature but their default, with a 400.
    const sampling = REASONING_MODEL.test(this.model) ? {} : { temperature: 0 };
    const request = { model: this.model, ...sampling, ...body };
    return (await postJson(`${this.baseUrl}/chat/completions`, headers, request, this.http.timeoutMs, signal)) as ChatCompletion;
  }

  private messages(system: string, user: string) {
    return [
      { role: "system", content: system },
      { role: "user", content: user },
    ];
  }

  private emptyUsage(): LlmUsage {
    return { model: this.model, inputTokens: 0, outputTokens: 0, costUsd: costOf(this.model, 0, 0) };
  }

  private add(usage: LlmUsage, completion: ChatCompletion): void {
    usage.inputTokens += completion.usage?.prompt_tokens ?? 0;
    usage.outputTokens += completion.usage?.completion_tokens ?? 0;
    usage.costUsd = costOf(this.model, usage.inputTokens, usage.outputTokens);
  }
}
