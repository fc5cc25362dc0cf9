import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

let svc: TestService;
let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
beforeAll(async () => {
  // A model that takes 1.5 s to reformulate: within reformulation's own budget, past the backstop.
  llm = await startScriptedLlm(() => new Promise((resolve) => setTimeout(() => resolve({ text: "slow answer" }), 1500)));
  svc = await startTestService({ llm: llm.llm });
});
afterAll(async () => {
  await svc.close();
  await llm.server.close();
});

describe("the server backstop", () => {
  test("a search with the deadline switched off that outlasts the backstop answers 504 backstop_timeout", async () => {
    const app = buildApp({ deps: { ...svc.deps, search: { deadlineMs: null } }, log: createLogger("error"), mode: testMode, backstopMs: 300 });
    const started = performance.now();
    const response = await app.handle(
      new Request("http://localhost/api/search", {
        method: "POST",
        headers: { "content-type": "application/json", "x-correlation-id": "corr-backstop" },
        body: JSON.stringify({ query: "anything", enable_reformulation: true }),
      }),
    );
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      error: "backstop_timeout",
      detail: "Request timeout",
      reason: "backstop_timeout",
      correlation_id: "corr-backstop",
    });
    expect(performance.now() - started).toBeLessThan(1200);
  });

  test("tRPC calls have the same backstop (tRPC's TIMEOUT, carrying the contract's body)", async () => {
    const app = buildApp({ deps: { ...svc.deps, search: { deadlineMs: null } }, log: createLogger("error"), mode: testMode, backstopMs: 300 });
    const response = await app.handle(
      new Request("http://localhost/trpc/search.unified", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "anything", enable_reformulation: true }),
      }),
    );
    expect(response.status).toBe(408);
    const body = (await response.json()) as any;
    expect(body.error.data.code).toBe("TIMEOUT");
    expect(body.error.data.appError).toMatchObject({ error: "backstop_timeout", reason: "backstop_timeout" });
  });
});
