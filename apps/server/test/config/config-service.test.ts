import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ClientInput } from "@als/client";
import { LOCAL_SCOPE, projectConfig } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const invalidate = (input?: ClientInput<"admin", "invalidateCache">) => svc.client.admin.invalidateCache(input);
/** admin/cache/invalidate with no body at all, which the typed client never sends (it sends `{}`). */
const invalidateWithoutBody = () => svc.call("POST", "/api/admin/cache/invalidate");
const windowSize = async () => (await svc.client.config.get()).window_size;

describe("the configuration cache", () => {
  test("get_config is served from this process's cache until admin/cache/invalidate", async () => {
    await svc.client.config.update({ window_size: 20 });
    expect(await windowSize()).toBe(20);
    // A write this process neither made nor heard of (the test service does not listen for changes,
    // see config-propagation.test.ts): its cache does not see it yet.
    await projectConfig.replaceProjectConfig(svc.db, LOCAL_SCOPE, { window_size: 30 }, svc.clock.now);
    expect(await windowSize()).toBe(20);
    expect(await invalidate({ org_id: "local" })).toEqual({ invalidated: true, org_id: "local" });
    expect(await windowSize()).toBe(30);
  });

  test("a write by this process is visible to the next read at once", async () => {
    expect(await windowSize()).toBe(30);
    await svc.client.config.set({ window_size: 40 });
    expect(await windowSize()).toBe(40);
  });

  test("a write this process does not hear of is seen once the cached copy expires", async () => {
    expect(await windowSize()).toBe(40);
    await projectConfig.replaceProjectConfig(svc.db, LOCAL_SCOPE, { window_size: 50 }, svc.clock.now);
    svc.clock.now += 31;
    expect(await windowSize()).toBe(50);
  });
});

describe("POST /api/admin/cache/invalidate", () => {
  test("without org_id it invalidates the caller's organisation; invalidated is false when nothing was cached", async () => {
    await svc.client.config.get();
    expect(await invalidateWithoutBody()).toEqual({ status: 200, body: { invalidated: true, org_id: "local" } });
    expect(await invalidateWithoutBody()).toEqual({ status: 200, body: { invalidated: false, org_id: "local" } });
    expect(await invalidate({})).toEqual({ invalidated: false, org_id: "local" });
  });

  test("an expired cached copy does not count as cached", async () => {
    await svc.client.config.get();
    svc.clock.now += 31;
    expect((await invalidate()).invalidated).toBe(false);
  });

  test("another organisation's org_id is a 403 and invalidates nothing", async () => {
    await svc.client.config.get();
    await expect(invalidate({ org_id: "someone-else" })).rejects.toMatchObject({ status: 403, code: "forbidden", message: expect.stringContaining("org_id") });
    expect((await invalidate()).invalidated).toBe(true);
  });

  test("unknown fields and a non-string org_id are 422s", async () => {
    const invalidateRaw = (body: unknown) => svc.call("POST", "/api/admin/cache/invalidate", body);
    expect((await invalidateRaw({ org: "local" })).status).toBe(422);
    const response = await invalidateRaw({ org_id: 7 });
    expect(response.status).toBe(422);
    expect(response.body.message).toContain("org_id");
  });
});

describe("GET /api/whoami and /api/my_config", () => {
  test("whoami names the organisation and the storage with credentials masked", async () => {
    const whoami = await svc.client.service.whoami();
    if (testMode === "full") {
      const opened = new URL((svc.deps.storage as { url: string }).url);
      expect(whoami).toEqual({
        success: true,
        org_id: "local",
        storage_type: "postgres",
        storage_label: expect.stringContaining(`${opened.host}${opened.pathname}`),
      });
      if (opened.password) expect(whoami.storage_label).not.toContain(opened.password);
      if (opened.username) expect(whoami.storage_label).toContain("://***@");
    } else {
      expect(whoami).toEqual({ success: true, org_id: "local", storage_type: "pglite", storage_label: "in memory" });
    }
  });

  test("my_config returns the raw storage settings, credentials included", async () => {
    const myConfig = await svc.client.service.myConfig();
    const storage = svc.deps.storage!;
    expect(myConfig).toEqual({
      success: true,
      storage_type: storage.kind,
      storage_config: storage.kind === "postgres" ? { url: storage.url } : { data_dir: null },
    });
  });

  test("whoami masks the user, password and query of a PostgreSQL URL; my_config keeps them", async () => {
    const opened = svc.deps.storage;
    svc.deps.storage = { kind: "postgres", url: "postgres://admin:s3cret@db.example:5432/learning?sslmode=require&password=other" };
    try {
      const whoami = await svc.client.service.whoami();
      expect(whoami.storage_label).toBe("postgres://***@db.example:5432/learning");
      const raw = await svc.client.service.myConfig();
      expect(raw.storage_config).toEqual({ url: svc.deps.storage.url });
    } finally {
      svc.deps.storage = opened;
    }
  });

  test("tRPC serves both as service.whoami and service.myConfig", async () => {
    for (const procedure of ["service.whoami", "service.myConfig"]) {
      const response = await svc.app.handle(new Request(`http://localhost/trpc/${procedure}`));
      expect(response.status).toBe(200);
      expect(((await response.json()) as any).result.data.storage_type).toBe(testMode === "full" ? "postgres" : "pglite");
    }
  });
});
