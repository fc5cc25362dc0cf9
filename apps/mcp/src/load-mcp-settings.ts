import { z } from "zod";

const McpSettings = z.object({
  SERVICE_URL: z
    .url({ protocol: /^https?$/ })
    .default("http://127.0.0.1:8081")
    .describe("Where the service answers"),
  SERVICE_API_KEY: z.string().min(1).optional().describe("A project's API key; unset for a local server (AUTH_MODE=local)"),
});

/** Where the stdio MCP server finds the service, and with which key: parsed once, from the environment. */
export function loadMcpSettings(env: Record<string, string | undefined>): { baseUrl: string; apiKey: string | undefined } {
  const parsed = McpSettings.safeParse(env);
  if (!parsed.success) throw new Error(`mcp: ${parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  return { baseUrl: parsed.data.SERVICE_URL, apiKey: parsed.data.SERVICE_API_KEY };
}
