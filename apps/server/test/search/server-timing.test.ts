import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadSettings } from "@als/core";
import { testMode } from "@als/test-support/database.ts";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { PgVectorIndex } from "@als/vector";
import { buildApp } from "../../src/app.ts";
import { parseServerTiming } from "../../src/http/server-timing.ts";
import { createLogger, type Logger } from "../../src/logger.ts";

// Operators read where a search's time goes from its Server-Timing header (SERVICE_SERVER_TIMING,
// on in the test service) and from the debug request log; the body never carries it.
let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  await svc.call("POST", "/api/add_user_profile", {
    user_profiles: [
      { user_id: "ana", profile_id: "ana-dog", content: "Owns a golden retriever named Biscuit" },
      { user_id: "ana", profile_id: "ana-nuts", content: "Is allergic to peanuts" },
    ],
  });
  await addUserPlaybooks(svc, [{ user_id: "ana", content: "Offer a refund when the order arrived broken" }]);
  await addAgentPlaybooks(svc, [{ trigger: "a customer wants their money back", content: "Offer a refund", playbook_status: "APPROVED" }]);
  await svc.call("POST", "/api/publish_interaction", {
    user_id: "ana",
    session_id: "s-1",
    interaction_data_list: [{ role: "User", content: "My dog Biscuit needs a walk" }],
  });
});
afterAll(() => svc.close());

/** POST `path` to `app` (default: the test service's), answered as it is sent. */
function post(path: string, body: object, app: { handle(request: Request): Promise<Response> } = svc.app) {
  return app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
}

/** The answer's stages, after checking that every duration is a number of milliseconds ≥ 0. */
function stagesOf(response: Response) {
  const header = response.headers.get("server-timing");
  expect(header).toBeString();
  const stages = parseServerTiming(header!);
  for (const [name, { dur }] of stages) {
    expect(name).toMatch(/^[a-z_.]+$/);
    expect(Number.isFinite(dur) && dur >= 0).toBe(true);
  }
  return stages;
}

describe("Server-Timing on searches", () => {
  test("POST /api/search names each of its stages, each entity's search by the path it took", async () => {
    const response = await post("/api/search", { query: "does she have a pet", user_id: "ana", session_id: "st-1" });
    expect(response.status).toBe(200);
    const stages = stagesOf(response);
    expect([...stages.keys()].sort()).toEqual(
      [
        "admission",
        "config",
        "dedup.read",
        "embed",
        "profiles",
        "user_playbooks",
        "agent_playbooks",
        "dedup.claim",
        "receipts",
        "evidence",
        "serialize",
        "total",
      ].sort(),
    );
    expect(stages.get("embed")!.desc).toBe("miss");
    for (const kind of ["profiles", "user_playbooks", "agent_playbooks"]) expect(stages.get(kind)!.desc).toBe("sql");
    // The whole request took at least as long as any of its stages.
    expect(Math.max(...[...stages.values()].map((stage) => stage.dur))).toBe(stages.get("total")!.dur);
  });

  test("a query embedded before is a cache hit; without a session there is no de-duplication", async () => {
    await post("/api/search", { query: "refund for a broken order", user_id: "ana" });
    const again = stagesOf(await post("/api/search", { query: "refund for a broken order", user_id: "ana" }));
    expect(again.get("embed")!.desc).toBe("hit");
    expect(again.has("reformulate")).toBe(false);
    expect(again.has("dedup.read")).toBe(false);
  });

  test("reformulation, when asked, is a stage of its own in unified and per-entity searches", async () => {
    const llm = await startScriptedLlm(() => ({ text: "refund for a damaged parcel" }));
    svc.deps.llm = llm.llm;
    try {
      for (const [path, body] of [
        ["/api/search", { query: "it came broken", user_id: "ana", enable_reformulation: true }],
        ["/api/search_user_playbooks", { query: "it came broken", user_id: "ana", enable_reformulation: true }],
      ] as const) {
        const response = await post(path, body);
        expect(response.status).toBe(200);
        expect(stagesOf(response).has("reformulate")).toBe(true);
      }
    } finally {
      delete svc.deps.llm;
      await llm.server.close();
    }
  });

  test.each([
    ["/api/search_profiles", { user_id: "ana", query: "pet" }, ["profiles"]],
    ["/api/search_user_playbooks", { user_id: "ana", query: "refund" }, ["user_playbooks", "evidence"]],
    ["/api/search_agent_playbooks", { query: "money back" }, ["agent_playbooks"]],
    ["/api/search_interactions", { user_id: "ana", query: "dog walk" }, ["interactions"]],
  ] as const)("%s names admission, the embedding, its own kind's search and serialisation", async (path, body, own) => {
    const response = await post(path, body);
    expect(response.status).toBe(200);
    const stages = stagesOf(response);
    expect([...stages.keys()].sort()).toEqual(["admission", "embed", ...own, "serialize", "total"].sort());
    expect(stages.get(own[0])!.desc).toBe("sql");
  });

  test("through a vector index, an entity's search names its vector arm and its statement", async () => {
    svc.deps.vectorIndex = new PgVectorIndex(svc.db);
    try {
      const stages = stagesOf(await post("/api/search_profiles", { user_id: "ana", query: "golden retriever" }));
      expect(stages.get("profiles")!.desc).toBe("index");
      for (const part of ["profiles.vector", "profiles.sql"]) expect(stages.has(part)).toBe(true);
    } finally {
      svc.deps.vectorIndex = undefined;
    }
  });

  test("concurrent searches each report their own stages", async () => {
    const [unified, profiles, agents] = await Promise.all([
      post("/api/search", { query: "allergies", user_id: "ana", entity_types: ["user_playbooks"] }),
      post("/api/search_profiles", { user_id: "ana", query: "food allergy" }),
      post("/api/search_agent_playbooks", { query: "wants a refund" }),
    ]);
    expect([...stagesOf(unified).keys()].filter((name) => name.endsWith("playbooks") || name === "profiles")).toEqual(["user_playbooks"]);
    expect(stagesOf(profiles).has("agent_playbooks")).toBe(false);
    expect(stagesOf(agents).has("profiles")).toBe(false);
  });
});

describe("what stays as it was", () => {
  test("SERVICE_SERVER_TIMING is off unless set to true", () => {
    expect(loadSettings({}).serverTiming).toBe(false);
    expect(loadSettings({ SERVICE_SERVER_TIMING: "true" }).serverTiming).toBe(true);
    expect(() => loadSettings({ SERVICE_SERVER_TIMING: "yes" })).toThrow("SERVICE_SERVER_TIMING");
  });

  test("the bodies are the same with the header off, and no header is sent", async () => {
    const quiet = buildApp({ deps: svc.deps, log: createLogger("error"), mode: testMode, strictResponses: true });
    for (const [path, body] of [
      ["/api/search", { query: "refund", user_id: "ana" }],
      ["/api/search_profiles", { user_id: "ana", query: "pet" }],
    ] as const) {
      const [timed, untimed] = await Promise.all([post(path, body), post(path, body, quiet)]);
      expect(untimed.headers.has("server-timing")).toBe(false);
      expect(await timed.json()).toEqual(await untimed.json());
    }
  });

  test("the debug request log line carries the same stages", async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const capture = (message: string, fields?: Record<string, unknown>) => void lines.push({ message, ...(fields && { fields }) });
    const log: Logger = { debug: capture, info: capture, warn: capture, error: capture };
    const logged = buildApp({ deps: svc.deps, log, mode: testMode, strictResponses: true });
    const response = await post("/api/search_profiles", { user_id: "ana", query: "peanuts" }, logged);
    expect(response.status).toBe(200);
    const line = lines.find((entry) => entry.message === "request");
    expect(line?.fields).toMatchObject({ method: "POST", path: "/api/search_profiles", status: 200, timingPaths: { profiles: "sql" } });
    expect(Object.keys(line!.fields!.timings as object).sort()).toEqual(["admission", "embed", "profiles", "serialize", "total"].sort());
  });
});
