import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type CoreDeps, createProcessServices, followConfigChanges, getProjectConfig } from "@als/core";
import { type Database, LOCAL_SCOPE, type NotificationListener, openDatabase, projectConfig } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { startTcpProxy, type TcpProxy } from "@als/test-support/tcp-proxy.ts";

// Full mode runs several processes on one PostgreSQL: a configuration change committed by one must
// be in effect in the others. The test service is one process; a second database handle beside it,
// with its own process services (its configuration cache) and its own listener, is the other (as an
// API process or a worker opens its own). Its listener connects through a TCP proxy, so that the path can go silent.

const HEARTBEAT_MS = 300;
const quiet = { info: () => {}, error: () => {} };

let svc: TestService;
let otherDb: Database;
let other: CoreDeps;
let proxy: TcpProxy;
let listener: NotificationListener;

beforeAll(async () => {
  if (testMode !== "full") return;
  svc = await startTestService();
  const storage = svc.deps.storage as { kind: "postgres"; url: string };
  otherDb = await openDatabase(storage);
  other = { ...svc.deps, db: otherDb, services: createProcessServices(otherDb, sharedProcessActivity()) };
  const direct = new URL(storage.url);
  proxy = startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const proxied = new URL(storage.url);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(proxy.port);
  listener = followConfigChanges(other, { url: proxied.toString() }, quiet, HEARTBEAT_MS);
});
afterAll(async () => {
  if (testMode !== "full") return;
  await listener.close();
  proxy.stop();
  await otherDb.close();
  await svc.close();
});

/** Polls `check` every 5 ms until it is true; fails after `ms`. */
async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`not ${what} within ${ms} ms`);
    await Bun.sleep(5);
  }
}

const otherWindowSize = async () => (await getProjectConfig(other, LOCAL_SCOPE)).window_size;

/**
 * Writes the configuration as a restore would, with triggers off: nothing is announced, so only a
 * cache that reads again (an invalidation, or one not kept) sees it.
 */
async function writeUnannounced(windowSize: number): Promise<void> {
  await svc.db.transaction(async (tx) => {
    await tx.query("SET LOCAL session_replication_role = replica");
    await projectConfig.replaceProjectConfig(tx, LOCAL_SCOPE, { window_size: windowSize }, svc.clock.now);
  });
}

describe.skipIf(testMode !== "full")("configuration changes across processes sharing PostgreSQL", () => {
  test("a change committed through one process is in effect in the other within a bound of milliseconds", async () => {
    await until(() => listener.isListening, 5_000, "listening");
    const delays: number[] = [];
    for (let windowSize = 41; windowSize <= 50; windowSize++) {
      expect(await otherWindowSize()).not.toBe(windowSize); // cached in the other process
      await svc.client.config.update({ window_size: windowSize });
      const committed = performance.now();
      await until(async () => (await otherWindowSize()) === windowSize, 1_000, `window_size ${windowSize} in the other process`);
      delays.push(performance.now() - committed);
    }
    expect(Math.max(...delays)).toBeLessThan(1_000);
  });

  test("admin/cache/invalidate through one process makes the other read again", async () => {
    await svc.client.config.update({ window_size: 20 });
    await until(async () => (await otherWindowSize()) === 20, 1_000, "window_size 20 in the other process");
    await writeUnannounced(21);
    expect(await otherWindowSize()).toBe(20);
    expect(await svc.client.admin.invalidateCache({ org_id: "local" })).toMatchObject({ org_id: "local" });
    await until(async () => (await otherWindowSize()) === 21, 1_000, "window_size 21 in the other process");
  });

  test("while its listening connection is cut the other process reads uncached, and keeps a copy again once it listens", async () => {
    await writeUnannounced(30);
    await svc.client.admin.invalidateCache();
    await until(async () => (await otherWindowSize()) === 30, 1_000, "window_size 30 in the other process");
    proxy.hold();
    await until(() => !listener.isListening, 5_000, "the loss noticed");
    // Unannounced, and would be unheard anyway: read all the same, since nothing is kept meanwhile.
    await writeUnannounced(31);
    expect(await otherWindowSize()).toBe(31);
    proxy.reset();
    proxy.release();
    await until(() => listener.isListening, 5_000, "listening again");
    expect(await otherWindowSize()).toBe(31);
    await writeUnannounced(32);
    expect(await otherWindowSize()).toBe(31);
    await svc.client.config.update({ window_size: 33 });
    await until(async () => (await otherWindowSize()) === 33, 1_000, "window_size 33 in the other process");
  });
});
