import { type Client, ClientError } from "@als/client";
import { endpoints, formatLoc } from "@als/contract";
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LEARNING_TOOLS } from "./learning-tools.ts";

/** The server's name and version as MCP clients show them. */
export const MCP_SERVER_INFO = { name: "agent-learning-service", version: "0.1.0" };

/**
 * The MCP server of the service over a typed client: each tool calls its endpoint with the
 * client's credentials, so tenancy, validation and rate limits are the REST API's. A refused call
 * is a tool error naming the status, the code and the fields, never a failed request.
 */
export function createMcpServer(client: Client): McpServer {
  const server = new McpServer(MCP_SERVER_INFO);
  for (const tool of LEARNING_TOOLS) {
    server.registerTool(
      tool.name,
      {
        description: tool.endpoint.summary,
        inputSchema: tool.endpoint.input,
        annotations: { readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (input: unknown) => answered(() => tool.call(client, input)),
    );
  }
  server.registerResource(
    "user_profile",
    new ResourceTemplate("profile://{user_id}", { list: undefined }),
    { description: `A user's current profiles: ${endpoints.profiles.get.summary}`, mimeType: "application/json" },
    async (uri, { user_id }) => {
      const profiles = await client.profiles.get({ user_id: String(user_id) });
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(profiles) }] };
    },
  );
  return server;
}

/** A call's answer as a tool result: the body as JSON, or the refusal as a tool error. */
async function answered(call: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const body = await call();
    return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body as Record<string, unknown> };
  } catch (error) {
    if (!(error instanceof ClientError)) throw error;
    return { content: [{ type: "text", text: describeRefusal(error) }], isError: true };
  }
}

/** `422 validation_error: user_id: required`: what an agent needs to correct its call. */
function describeRefusal(error: ClientError): string {
  const fields = error.issues.map((issue) => `${formatLoc(issue.loc)}: ${issue.msg}`).join("; ");
  return `${error.status} ${error.code}: ${fields || error.message}`;
}
