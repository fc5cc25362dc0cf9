import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the deterministic server saw it. */
export interface FakeLlmRequest {
  protocol: "openai" | "anthropic";
  /** The structured output's schema (OpenAI json_schema name, or the forced Anthropic tool); null for text. */
  schemaName: string | null;
  system: string;
  user: string;
  body: any;
  /** The credential and version headers, to check what the client sent. */
  headers: { authorization?: string; "x-api-key"?: string; "anthropic-version"?: string };
}

export type FakeLlmReply =
  | { json: unknown }
  | { text: string }
  | { status: number; error: { type?: string; code?: string; message: string }; headers?: Record<string, string> };

export type FakeLlmHandler = (request: FakeLlmRequest) => FakeLlmReply | Promise<FakeLlmReply>;

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

async function readJson(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/**
 * A deterministic LLM provider on 127.0.0.1 that speaks the real protocols — OpenAI chat
 * completions (`POST /v1/chat/completions`) and Anthropic messages (`POST /v1/messages`) — so tests
 * exercise our real provider clients. `handler` decides each answer; token counts are word counts.
 * node:http, so Bun tests and the Node worker tests share it.
 */
export async function startFakeLlmServer(handler: FakeLlmHandler) {
  const requests: FakeLlmRequest[] = [];
  let current = handler;
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      // A success closes its connection, so the client pools none of this server's connections after
      // one: a mapping proposal once failed every attempt with "could not be reached". Bun's fetch
      // (1.3.14) pools a connection even after a non-2xx `Connection: close`, so errors keep alive.
      const close = status >= 200 && status < 300 ? { connection: "close" } : {};
      res.writeHead(status, { "content-type": "application/json", ...close, ...headers });
      res.end(JSON.stringify(body));
    };
    try {
      const body = await readJson(req);
      const headers = Object.fromEntries(
        (["authorization", "x-api-key", "anthropic-version"] as const).flatMap((name) =>
          typeof req.headers[name] === "string" ? [[name, req.headers[name]]] : [],
        ),
      );
      const protocol = req.url === "/v1/messages" ? "anthropic" : req.url === "/v1/chat/completions" ? "openai" : undefined;
      if (!protocol) return send(404, { error: { type: "not_found", message: `no route ${req.url}` } });
      const request: FakeLlmRequest =
        protocol === "openai"
          ? {
              protocol,
              schemaName: body.response_format?.json_schema?.name ?? null,
              system: body.messages.find((m: any) => m.role === "system")?.content ?? "",
              user: body.messages
                .filter((m: any) => m.role === "user")
                .map((m: any) => m.content)
                .join("\n"),
              body,
              headers,
            }
          : {
              protocol,
              schemaName: body.tool_choice?.name ?? null,
              system: body.system ?? "",
              user: body.messages.map((m: any) => m.content).join("\n"),
              body,
              headers,
            };
      requests.push(request);
      const reply = await current(request);
      if ("status" in reply) return send(reply.status, { error: reply.error }, reply.headers);
      const output = "json" in reply ? JSON.stringify(reply.json) : reply.text;
      const inputTokens = words(request.system) + words(request.user);
      if (protocol === "openai") {
        return send(200, {
          id: `chatcmpl-${requests.length}`,
          object: "chat.completion",
          model: body.model,
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: output } }],
          usage: { prompt_tokens: inputTokens, completion_tokens: words(output), total_tokens: inputTokens + words(output) },
        });
      }
      const content =
        "json" in reply && request.schemaName
          ? [{ type: "tool_use", id: `toolu_${requests.length}`, name: request.schemaName, input: reply.json }]
          : [{ type: "text", text: output }];
      return send(200, {
        id: `msg_${requests.length}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: content[0]!.type === "tool_use" ? "tool_use" : "end_turn",
        usage: { input_tokens: inputTokens, output_tokens: words(output) },
      });
    } catch (error) {
      send(500, { error: { type: "server_error", message: String(error) } });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setHandler(next: FakeLlmHandler) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
