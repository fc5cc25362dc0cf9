import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { LEARNING_TOOLS } from "@als/mcp";
import { ensurePythonVenv } from "@als/test-support/python-venv.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

// The MCP server through the official SDKs' clients, TypeScript's and Python's (PyPI mcp), over both
// transports: Streamable HTTP at /mcp on the service, and stdio (scripts/mcp, talking to the
// service's REST API over the network). Two organisations: what one publishes, the other's key never sees.

const ROOT = new URL("../../../../", import.meta.url).pathname;
const A_TEXT = "ALPHA-ONLY hiking in the Dolomites every September";

let svc: TestService;
let url: string;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  svc = await startTestService({ authMode: "required" });
  svc.app.listen({ hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${svc.app.server!.port}`;
  a = await createTenant(svc.deps, "mcp-alpha");
  b = await createTenant(svc.deps, "mcp-beta");
  const added = await svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "alice", content: A_TEXT }] }, bearer(a.fullKey));
  expect(added.status).toBe(200);
});
afterAll(async () => {
  await svc.app.stop(true);
  await svc.close();
});

type Transport = "http" | "stdio";

async function connect(transport: Transport, key: string): Promise<Client> {
  const client = new Client({ name: "als-test-client", version: "1.0.0" });
  if (transport === "http") {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: bearer(key) } }));
  } else {
    const env = { ...(process.env as Record<string, string>), SERVICE_URL: url, SERVICE_API_KEY: key };
    await client.connect(new StdioClientTransport({ command: "bash", args: [`${ROOT}scripts/mcp`], env, stderr: "pipe" }));
  }
  return client;
}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

for (const transport of ["http", "stdio"] as const) {
  describe(`MCP over ${transport}`, () => {
    let alpha: Client;
    let beta: Client;
    beforeAll(async () => {
      alpha = await connect(transport, a.fullKey);
      beta = await connect(transport, b.fullKey);
    }, 60_000);
    afterAll(async () => {
      await alpha?.close();
      await beta?.close();
    });

    test("lists the learning tools with their endpoints' descriptions and input schemas", async () => {
      const { tools } = await alpha.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(LEARNING_TOOLS.map((tool) => tool.name).sort());
      const search = tools.find((tool) => tool.name === "search_learnings")!;
      expect(search.description).toContain("Search profiles");
      expect(search.inputSchema.properties).toHaveProperty("query");
      expect(search.annotations?.readOnlyHint).toBe(true);
      const { resourceTemplates } = await alpha.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["profile://{user_id}"]);
    });

    test("searches, reads profiles and playbooks, and reads the profile resource of its own organisation", async () => {
      const found = await alpha.callTool({ name: "search_learnings", arguments: { query: "hiking in the mountains", user_id: "alice" } });
      expect(found.isError).toBeFalsy();
      expect(textOf(found)).toContain(A_TEXT);
      const profiles = await alpha.callTool({ name: "get_user_profiles", arguments: { user_id: "alice" } });
      expect((profiles.structuredContent as { user_profiles: { content: string }[] }).user_profiles.map((p) => p.content)).toEqual([A_TEXT]);
      const playbooks = await alpha.callTool({ name: "get_user_playbooks", arguments: { user_id: "alice" } });
      expect(playbooks.isError).toBeFalsy();
      const resource = await alpha.readResource({ uri: "profile://alice" });
      expect((resource.contents[0] as { text: string }).text).toContain(A_TEXT);
    });

    test("records a session's turns and its outcome, and lists pending questions", async () => {
      const sessionId = `mcp-${transport}-${crypto.randomUUID()}`;
      const published = await alpha.callTool({
        name: "publish_interactions",
        arguments: {
          user_id: "alice",
          session_id: sessionId,
          interaction_data_list: [
            { role: "User", content: "Book the usual mountain hut" },
            { role: "Agent", content: "Booked for September." },
          ],
        },
      });
      expect(published.isError).toBeFalsy();
      expect(published.structuredContent).toMatchObject({ success: true });
      const outcome = await alpha.callTool({
        name: "report_session_outcome",
        arguments: { session_id: sessionId, outcome: "success", occurred_at: svc.clock.now },
      });
      expect(outcome.isError).toBeFalsy();
      expect(outcome.structuredContent).toMatchObject({ recorded: true });
      const questions = await alpha.callTool({ name: "list_pending_questions", arguments: { status: "pending" } });
      expect(questions.structuredContent).toMatchObject({ pending_tool_calls: [] });
    });

    test("bad input is a tool error naming the field, never a failed exchange", async () => {
      const missing = await alpha.callTool({ name: "get_user_profiles", arguments: {} });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain("user_id");
      const wrongType = await alpha.callTool({ name: "publish_interactions", arguments: { user_id: "alice", interaction_data_list: "not a list" } });
      expect(wrongType.isError).toBe(true);
      expect(textOf(wrongType)).toContain("interaction_data_list");
      const unknown = await alpha.callTool({ name: "answer_pending_question", arguments: { pending_tool_call_id: "no-such-question", answer: "yes" } });
      expect(unknown.isError).toBe(true);
      expect(textOf(unknown)).toStartWith("404 not_found");
      // The connection still serves.
      expect((await alpha.callTool({ name: "get_user_profiles", arguments: { user_id: "alice" } })).isError).toBeFalsy();
    });

    test("another organisation's key sees nothing of this one's", async () => {
      const found = await beta.callTool({ name: "search_learnings", arguments: { query: "hiking in the mountains", user_id: "alice" } });
      expect(found.isError).toBeFalsy();
      const profiles = await beta.callTool({ name: "get_user_profiles", arguments: { user_id: "alice" } });
      expect(profiles.structuredContent).toMatchObject({ user_profiles: [] });
      const resource = await beta.readResource({ uri: "profile://alice" });
      for (const answer of [textOf(found), textOf(profiles), JSON.stringify(resource)]) expect(answer).not.toContain("ALPHA-ONLY");
    });
  });
}

describe("MCP credentials", () => {
  test("over HTTP a missing or unknown key is refused at the door with 401", async () => {
    await expect(connect("http", "als_unknown_key")).rejects.toMatchObject({ code: 401, message: expect.stringContaining("unauthorized") });
    const bare = await fetch(`${url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(bare.status).toBe(401);
    expect(JSON.stringify(await bare.json())).not.toContain("ALPHA");
  });

  test("over HTTP a body that is not JSON answers 422 and a message that is not MCP 400, never a 500", async () => {
    const post = (body: string) =>
      fetch(`${url}/mcp`, {
        method: "POST",
        headers: { ...bearer(a.fullKey), "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      });
    const notJson = await post("{not json");
    expect(notJson.status).toBe(422);
    expect(JSON.stringify(await notJson.json())).toContain("not valid JSON");
    const notMcp = await post(JSON.stringify({ hello: "world" }));
    expect(notMcp.status).toBe(400);
  });

  test("over stdio an unknown key makes every tool call a 401 tool error", async () => {
    const client = await connect("stdio", "als_unknown_key");
    try {
      const refused = await client.callTool({ name: "get_user_profiles", arguments: { user_id: "alice" } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toStartWith("401 unauthorized");
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("the Python MCP SDK's client", () => {
  let python: string;
  beforeAll(async () => {
    python = await ensurePythonVenv("mcp-client", ["/root/.pyenv/versions/3.12.1/bin/python3.12", "python3.12"], `${ROOT}test/mcp-client/requirements.txt`);
  }, 900_000);

  for (const transport of ["http", "stdio"] as const) {
    test(`over ${transport}: tools, a search, a publish, an outcome, bad input as tool errors, another organisation refused`, async () => {
      const child = Bun.spawn([python, `${ROOT}test/mcp-client/drive.py`, transport, url, a.fullKey, b.fullKey], {
        env: { ...(process.env as Record<string, string>), OCCURRED_AT: String(svc.clock.now) },
        stdout: "pipe",
        stderr: "inherit",
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
      const output = await new Response(child.stdout).text();
      clearTimeout(timer);
      expect(await child.exited).toBe(0);
      const report = JSON.parse(output);
      // The exchange, trimmed, for whoever reads the test's output.
      for (const [step, answer] of Object.entries(report)) console.error(`python mcp ${transport} ${step}: ${JSON.stringify(answer).slice(0, 240)}`);

      expect(report.tools).toEqual(LEARNING_TOOLS.map((tool) => tool.name).sort());
      expect(report.search).toMatchObject({ is_error: false, text: expect.stringContaining(A_TEXT) });
      expect(report.publish).toMatchObject({ is_error: false, text: expect.stringContaining('"success":true') });
      expect(report.outcome).toMatchObject({ is_error: false, text: expect.stringContaining('"recorded":true') });
      expect(report.questions).toMatchObject({ is_error: false, text: expect.stringContaining('"pending_tool_calls":[]') });
      expect(report.bad_input).toMatchObject({ is_error: true, text: expect.stringContaining("user_id") });
      expect(report.unknown_question).toMatchObject({ is_error: true, text: expect.stringMatching(/^404 not_found/) });
      expect(report.resource).toContain(A_TEXT);
      expect(report.after_errors).toMatchObject({ is_error: false, text: expect.stringContaining(A_TEXT) });
      for (const seen of [report.other_search, report.other_profiles, report.other_resource]) expect(JSON.stringify(seen)).not.toContain("ALPHA-ONLY");
      expect(report.other_profiles).toMatchObject({ is_error: false, text: expect.stringContaining('"user_profiles":[]') });
      if (transport === "http") expect(report.unknown_key).toMatchObject({ refused: expect.stringContaining("error response"), statuses: [401] });
      else expect(report.unknown_key).toMatchObject({ is_error: true, text: expect.stringMatching(/^401 unauthorized/) });
    }, 120_000);
  }
});
