import { createClient } from "@als/client";
import { createMcpServer } from "@als/mcp";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { loadMcpSettings } from "./load-mcp-settings.ts";

// The MCP server on stdio, for desktop and coding agents: each tool is a call of the REST API with
// the configured key. stdout carries the protocol only; anything said goes to stderr.
let settings: ReturnType<typeof loadMcpSettings>;
try {
  settings = loadMcpSettings(process.env);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
const client = createClient({ baseUrl: settings.baseUrl, ...(settings.apiKey !== undefined && { apiKey: settings.apiKey }) });
await createMcpServer(client).connect(new StdioServerTransport());
console.error(`mcp: serving ${settings.baseUrl} on stdio`);
