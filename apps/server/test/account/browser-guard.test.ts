import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const profileBody = (userId: string) => JSON.stringify({ user_profiles: [{ user_id: userId, content: "Rides a bicycle" }] });
const countProfiles = async (userId: string) => (await svc.call("GET", `/api/storage_stats?user_id=${userId}`)).body.profile_count as number;

describe("another web page cannot drive a local server", () => {
  test("a POST from another origin is refused before it runs, on REST and tRPC", async () => {
    for (const path of ["/api/add_user_profile", "/trpc/profiles.add"]) {
      const response = await svc.app.handle(
        new Request(`http://localhost${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://evil.example" },
          body: profileBody("victim"),
        }),
      );
      expect(response.status).toBe(403);
      expect(((await response.json()) as { detail: string }).detail).toContain("https://evil.example");
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
    expect(await countProfiles("victim")).toBe(0);
  });

  test("a page reached through a rebound DNS name cannot read my_config: the host name is refused", async () => {
    const response = await svc.app.handle(new Request("http://attacker.example:8081/api/my_config", { headers: { host: "attacker.example:8081" } }));
    expect(response.status).toBe(403);
    expect(JSON.stringify(await response.json())).not.toContain("storage_config");
  });

  test("loopback names, same-origin pages and callers without an Origin are served", async () => {
    for (const host of ["localhost:8081", "127.0.0.1:8081", "[::1]:8081"]) {
      expect((await svc.app.handle(new Request(`http://${host}/api/whoami`, { headers: { host } }))).status).toBe(200);
    }
    const sameOrigin = await svc.app.handle(
      new Request("http://127.0.0.1:8081/api/whoami", { headers: { host: "127.0.0.1:8081", origin: "http://127.0.0.1:8081" } }),
    );
    expect(sameOrigin.status).toBe(200);
  });
});

describe("allowed origins get CORS", () => {
  test("an allowed origin's preflight and request carry its CORS headers; other origins still get 403", async () => {
    const app = buildApp({
      deps: svc.deps,
      log: createLogger("error"),
      mode: "embedded",
      browser: { allowedOrigins: ["https://console.example"], allowedHosts: ["localhost"] },
    });
    const preflight = await app.handle(
      new Request("http://localhost/api/add_user_profile", {
        method: "OPTIONS",
        headers: { origin: "https://console.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://console.example");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("content-type");
    const call = await app.handle(
      new Request("http://localhost/api/add_user_profile", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "https://console.example" },
        body: profileBody("console"),
      }),
    );
    expect(call.status).toBe(200);
    expect(call.headers.get("access-control-allow-origin")).toBe("https://console.example");
    const other = await app.handle(new Request("http://localhost/api/whoami", { headers: { origin: "https://other.example" } }));
    expect(other.status).toBe(403);
  });

  test("SERVICE_ALLOWED_HOSTS=* answers to any host name", async () => {
    const app = buildApp({ deps: svc.deps, log: createLogger("error"), mode: "embedded", browser: { allowedOrigins: [], allowedHosts: "any" } });
    expect((await app.handle(new Request("http://api.example.com/api/whoami", { headers: { host: "api.example.com" } }))).status).toBe(200);
  });
});
