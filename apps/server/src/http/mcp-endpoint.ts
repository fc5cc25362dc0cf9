import { createClient } from "@als/client";
import type { IncomingRequest } from "../context.ts";

/** What the /mcp route needs of the app around it. */
export interface McpRouteDeps {
  /** Admits the request as the REST API admits one: the credential resolver and the rate limit (throws the refusal). */
  admit(incoming: IncomingRequest): Promise<void>;
  /** Hands a request to the app itself, in process. */
  handle(request: Request): Promise<Response>;
}

/**
 * One request of MCP's Streamable HTTP transport, stateless: each POST gets a server of its own
 * whose tools call the REST API in process with the caller's own Authorization and X-Service-Project,
 * so every tool call is authorised, validated and rate-limited as that REST call would be, and a
 * caller reaches its own organisation's data only. The caller is first admitted at the door, so a
 * bad or missing credential is a 401 before any MCP exchange.
 */
export async function serveMcp(route: McpRouteDeps, request: Request, incoming: IncomingRequest, parsedBody: unknown): Promise<Response> {
  await route.admit(incoming);
  const forwarded: Record<string, string> = incoming.project !== null ? { "x-service-project": incoming.project } : {};
  const client = createClient({
    baseUrl: new URL(request.url).origin,
    ...(incoming.authorization !== null && { apiKey: incoming.authorization.replace(/^Bearer\s+/i, "") }),
    fetch: (url, init) => route.handle(new Request(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...forwarded } })),
    // The caller's MCP client decides whether to try again; one tool call is one REST call.
    retries: 0,
  });
  // Loaded at the first MCP request rather than at every start: the SDK takes about 0.1 s of CPU to load.
  const [{ createMcpServer }, { WebStandardStreamableHTTPServerTransport }] = await Promise.all([
    import("@als/mcp"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
  ]);
  const server = createMcpServer(client);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await server.close();
  }
}
