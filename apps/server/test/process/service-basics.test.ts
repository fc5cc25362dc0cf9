import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { AppError, ERROR_TABLE, type ErrorCode, errorBody } from "@als/contract";
import { createProcessServices } from "@als/core";
import { freshDatabase, testMode } from "@als/test-support/database.ts";
import { sharedEmbedder } from "@als/test-support/embedder.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";
import { routeList } from "../../src/routes/index.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe("service endpoints", () => {
  test("GET /health reports the mode, storage and model", async () => {
    const response = await svc.call("GET", "/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: "ok",
      mode: testMode,
      storage: testMode === "full" ? "postgres" : "pglite",
      embedding_model: "e5-small-v2-int8",
    });
  });

  test("/openapi.json is OpenAPI 3.1 with every operation", async () => {
    const response = await svc.call("GET", "/openapi.json");
    expect(response.body.openapi).toBe("3.1.0");
    for (const { endpoint } of routeList) {
      // Elysia's `:name` path parameters are written `{name}` in OpenAPI.
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}");
      expect(response.body.paths[path][endpoint.method.toLowerCase()].operationId).toBe(endpoint.procedure);
    }
    const add = response.body.paths["/api/add_user_profile"].post.requestBody.content["application/json"].schema;
    expect(add.properties.user_profiles.items.required.sort()).toEqual(["content", "user_id"]);
    const getAll = response.body.paths["/api/get_all_profiles"].get.parameters.map((p: any) => p.name);
    expect(getAll).toContain("date_field");
  });

  test("/docs serves the API reference page", async () => {
    const response = await svc.app.handle(new Request("http://localhost/docs"));
    expect(response.headers.get("content-type")).toContain("text/html");
    expect(await response.text()).toContain("/openapi.json");
  });

  test("an unknown path answers 404 in the error format", async () => {
    const response = await svc.call("POST", "/api/no_such_endpoint", {});
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: "not_found" });
  });
});

describe("tRPC", () => {
  const trpc = async (procedure: string, input: unknown, method: "GET" | "POST" = "POST") => {
    const url =
      method === "GET" ? `http://localhost/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}` : `http://localhost/trpc/${procedure}`;
    const init: RequestInit = method === "GET" ? {} : { method, body: JSON.stringify(input), headers: { "content-type": "application/json" } };
    const response = await svc.app.handle(new Request(url, init));
    return { status: response.status, body: (await response.json()) as any };
  };

  test("mutations and queries run the same operations as REST", async () => {
    const added = await trpc("profiles.add", { user_profiles: [{ user_id: "trpc-user", content: "Likes jazz music" }] });
    expect(added.status).toBe(200);
    expect(added.body.result.data.added_count).toBe(1);
    const found = await trpc("profiles.search", { user_id: "trpc-user", query: "favourite songs genre" });
    expect(found.body.result.data.user_profiles[0].content).toBe("Likes jazz music");
    const all = await trpc("profiles.getAll", { user_id: "trpc-user" }, "GET");
    expect(all.body.result.data.user_profiles).toHaveLength(1);
  });

  test("validation errors carry the 422 code and the field", async () => {
    const response = await trpc("profiles.add", { user_profiles: [{ user_id: "x" }] });
    expect(response.status).toBe(422);
    expect(response.body.error.data.code).toBe("UNPROCESSABLE_CONTENT");
    expect(response.body.error.message).toContain("user_profiles[0].content");
  });
});

describe("errors", () => {
  test("the error table covers every code with an HTTP status and a tRPC code", () => {
    for (const [code, entry] of Object.entries(ERROR_TABLE)) {
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.trpc.length).toBeGreaterThan(0);
      expect(new AppError(code as ErrorCode, "m").status).toBe(entry.status);
    }
    expect(ERROR_TABLE.validation_error.status).toBe(422);
    expect(ERROR_TABLE.conflict.status).toBe(409);
    expect(ERROR_TABLE.storage_unavailable.status).toBe(503);
    expect(ERROR_TABLE.search_deadline.status).toBe(504);
  });

  test("a 504 body carries detail, reason and correlation_id as the contract says", () => {
    const body = errorBody(new AppError("search_deadline", "Request timeout", { reason: "search_deadline", correlation_id: "c-1" }));
    expect(body).toEqual({ error: "search_deadline", detail: "Request timeout", reason: "search_deadline", correlation_id: "c-1" });
  });

  test("unavailable storage answers 503, never an empty success", async () => {
    const { db, drop } = await freshDatabase();
    const app = buildApp({
      deps: { db, services: createProcessServices(db, sharedProcessActivity()), embedder: await sharedEmbedder(), now: () => 0 },
      log: createLogger("error"),
      mode: testMode,
    });
    await drop();
    const search = await app.handle(
      new Request("http://localhost/api/search_profiles", {
        method: "POST",
        headers: { "content-type": "application/json", "x-correlation-id": "corr-503" },
        body: JSON.stringify({ user_id: "u", query: "anything" }),
      }),
    );
    expect(search.status).toBe(503);
    expect(await search.json()).toMatchObject({ error: "storage_unavailable", correlation_id: "corr-503" });
    const health = await app.handle(new Request("http://localhost/health"));
    expect(health.status).toBe(503);
  });
});
