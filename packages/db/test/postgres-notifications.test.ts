import { afterAll, describe, expect, test } from "bun:test";
import { startTcpProxy } from "@als/test-support/tcp-proxy.ts";
import postgres from "postgres";
import { listenForNotifications, type NotificationListener } from "../src/index.ts";

const serverUrl = process.env.TEST_DATABASE_URL;
const admin = serverUrl ? postgres(serverUrl, { max: 1, onnotice: () => {} }) : undefined;
afterAll(() => admin?.end());

/** Polls `check` every 20 ms until it is true; fails after `ms`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = performance.now() + ms;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`not ${what} within ${ms} ms`);
    await Bun.sleep(20);
  }
}

/** A listener on a channel of its own, and what it heard and was told. */
function listener(url: string, heartbeatMs?: number) {
  const name = `als-test-${crypto.randomUUID()}`;
  const heard: string[] = [];
  const events: string[] = [];
  const handle: NotificationListener = listenForNotifications(
    { url, channel: name, applicationName: name, ...(heartbeatMs !== undefined && { heartbeatMs }) },
    { notified: (payload) => heard.push(payload), listening: () => events.push("listening"), lost: () => events.push("lost") },
  );
  const notify = async (payload: string) => {
    await admin!`SELECT pg_notify(${name}, ${payload})`;
  };
  return { name, heard, events, handle, notify };
}

describe.skipIf(!serverUrl)("listening for notifications on PostgreSQL", () => {
  test("a committed notification is heard; one whose transaction rolled back never is", async () => {
    const { name, heard, handle, notify } = listener(serverUrl!);
    try {
      await until(() => handle.isListening, 5_000, "listening");
      await admin!
        .begin(async (tx) => {
          await tx`SELECT pg_notify(${name}, 'rolled back')`;
          throw new Error("roll back");
        })
        .catch(() => {});
      await notify("committed");
      await until(() => heard.length > 0, 5_000, "heard");
      expect(heard).toEqual(["committed"]);
    } finally {
      await handle.close();
    }
  });

  test("a terminated listening connection is reported lost, then it listens again and hears what follows", async () => {
    const { name, heard, events, handle, notify } = listener(serverUrl!);
    try {
      await until(() => handle.isListening, 5_000, "listening");
      await admin!`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ${name}`;
      await until(() => events.length >= 3, 5_000, "listening again");
      expect(events).toEqual(["listening", "lost", "listening"]);
      await notify("after");
      await until(() => heard.length > 0, 5_000, "heard");
      expect(heard).toEqual(["after"]);
    } finally {
      await handle.close();
    }
    expect((await admin!`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${name}`)[0]!.n).toBe(0);
  });

  test("a path that goes silent is noticed by the heartbeat, and once it is back it listens again", async () => {
    const target = new URL(serverUrl!);
    const proxy = startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const through = new URL(serverUrl!);
    through.hostname = "127.0.0.1";
    through.port = String(proxy.port);
    const heartbeatMs = 300;
    const { heard, events, handle, notify } = listener(through.toString(), heartbeatMs);
    try {
      await until(() => handle.isListening, 5_000, "listening");
      proxy.hold();
      const heldAt = performance.now();
      await notify("unheard");
      await until(() => events.includes("lost"), 5_000, "lost");
      // A heartbeat sent just before the hold has a whole interval to answer, the next one another.
      expect(performance.now() - heldAt).toBeLessThan(2 * heartbeatMs + 500);
      proxy.reset();
      proxy.release();
      await until(() => handle.isListening, 5_000, "listening again");
      await notify("heard");
      await until(() => heard.length > 0, 5_000, "heard");
      expect(heard).toEqual(["heard"]);
      expect(events).toEqual(["listening", "lost", "listening"]);
    } finally {
      await handle.close();
      proxy.stop();
    }
  });
});
