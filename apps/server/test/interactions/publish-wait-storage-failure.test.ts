import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { testMode } from "@als/test-support/database.ts";
import { until } from "@als/test-support/server-process.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import postgres from "postgres";

// Short storage bounds, so that a call the storage does not answer fails within a second or two.
const TIMEOUTS = { connectMs: 1_000, acquireMs: 1_000, statementMs: 1_000 };

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService({ storageTimeouts: TIMEOUTS });
});
afterAll(() => svc.close());

/** The request ids stored for `userId`. */
const storedRequests = async (userId: string) =>
  (await svc.db.query<{ request_id: string }>("SELECT request_id FROM requests WHERE user_id = $1", [userId])).map((row) => row.request_id);

/**
 * Makes the storage fail for the service, in the way each engine really fails, until the returned
 * function is called. PostgreSQL: the database refuses connections and its sessions are ended (the
 * pool's next statement and every reconnection fail). PGlite, one session in the process: another
 * transaction holds it past the bounds, so the service's statements time out waiting for it.
 */
async function failStorage(): Promise<() => Promise<void>> {
  if (testMode === "full") {
    const name = new URL((svc.deps.storage as { url: string }).url).pathname.slice(1);
    const server = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
    await server.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await server`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`;
    return async () => {
      await server.unsafe(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await server.end();
    };
  }
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held: () => void = () => {};
  const holding = new Promise<void>((resolve) => {
    held = resolve;
  });
  const transaction = svc.db.transaction(async (tx) => {
    await tx.query("SELECT 1");
    held();
    await released;
  });
  await holding;
  return async () => {
    release();
    await transaction;
  };
}

describe("a publish that waits for learning, once committed", () => {
  test("answers 200 with its request id when the storage fails during the wait, saying learning's state is not known yet and where to look it up", async () => {
    // No stride reached and no completion hint: learning waits for a window, so the publish keeps waiting.
    const answering = svc.call("POST", "/api/publish_interaction?wait_for_response=true", {
      user_id: "wren",
      session_id: "s",
      interaction_data_list: [{ role: "user", content: "I keep bees on my roof" }],
    });
    const [stored] = await until(async () => {
      const ids = await storedRequests("wren");
      return ids.length > 0 ? ids : undefined;
    }, 10_000);
    // Still waiting: the answer has not come.
    expect(await Promise.race([answering.then(() => "answered"), Bun.sleep(500).then(() => "waiting")])).toBe("waiting");

    const restore = await failStorage();
    let answer: Awaited<typeof answering>;
    const failedAt = performance.now();
    try {
      answer = await answering;
    } finally {
      await restore();
    }
    const answeredAfterMs = performance.now() - failedAt;

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ success: true, request_id: stored, learning_status: "deferred", interactions_created: 1 });
    expect(answer.body.message).toContain("not known yet (storage is unavailable");
    expect(answer.body.message).toContain(`GET /api/learning_status?request_id=${stored}`);
    // Within the storage's bounds, not the 240 s wait.
    expect(answeredAfterMs).toBeLessThan(10_000);

    // Once the storage is back, the request id finds the one stored request and where its learning stands.
    const status = await until(async () => {
      const looked = await svc.call("GET", `/api/learning_status?request_id=${stored}`);
      return looked.status === 200 ? looked.body : undefined;
    }, 20_000);
    expect(status).toMatchObject({ request_id: stored, status: "pending" });
    expect(await storedRequests("wren")).toEqual([stored!]);
  }, 60_000);
});
