import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { type BalancedDeployment, organisationWithKey, startBalancedDeployment } from "./balanced-deployment.ts";

// What one API process changes, the other acts on: state the processes share through the database
// (credentials, configuration, retried writes), in a deployment of two API processes and two
// workers behind Debian's HAProxy, AUTH_MODE=required.

const PASSWORD = "the owner's own password";
const CLIENT = "127.0.0.70";

let deployment: BalancedDeployment;
let session: string;
/** An API key of the owner's default project. */
let apiKey: string;
let sql: postgres.Sql;

beforeAll(async () => {
  deployment = await startBalancedDeployment("balanced-state");
  ({ session, apiKey } = await organisationWithKey(deployment, CLIENT, PASSWORD));
  sql = postgres(deployment.databaseUrl, { max: 1, onnotice: () => {} });
}, 180_000);
afterAll(async () => {
  await sql?.end();
  await deployment?.close();
});

const whoamiThrough = async (url: string, token: string) => (await fetch(`${url}/api/whoami`, { headers: { authorization: `Bearer ${token}` } })).status;

describe("state shared by the API processes of a balanced deployment", () => {
  test("a key created through one process serves through the other, and once revoked through one is refused by both at once", async () => {
    const [first, second] = deployment.apiUrls as [string, string];
    const created = await fetch(`${first}/api/account/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session}` },
      body: JSON.stringify({ name: "agent", project_id: "default" }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { key: string; prefix: string };
    expect([await whoamiThrough(second, key.key), await whoamiThrough(first, key.key)]).toEqual([200, 200]);
    const revoked = await fetch(`${first}/api/account/api-keys/${key.prefix}`, { method: "DELETE", headers: { authorization: `Bearer ${session}` } });
    expect(revoked.status).toBe(200);
    expect([await whoamiThrough(second, key.key), await whoamiThrough(first, key.key)]).toEqual([401, 401]);
  });
});

/** A JSON call with the API key to `url` (the balancer, or one process), and which process answered. */
async function call(url: string, method: "GET" | "POST", path: string, body?: object, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body && { "content-type": "application/json" }), ...headers },
    ...(body && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any, servedBy: response.headers.get("x-served-by") ?? "" };
}

/** The process HAProxy names `name` (api-1, api-2), called directly. */
const processUrl = (name: string) => deployment.apiUrls[Number(name.slice("api-".length)) - 1]!;

describe("configuration behind a balancer over two API processes", () => {
  test("every API process and worker listens for configuration changes", async () => {
    // The deployment is up once its API processes answer; a worker may still be starting.
    const listening = async () =>
      (
        await sql<{ n: number }[]>`
          SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'als config changes' AND datname = current_database()`
      )[0]?.n;
    const deadline = performance.now() + 60_000;
    while ((await listening()) !== 4 && performance.now() < deadline) await Bun.sleep(200);
    expect(await listening()).toBe(4);
  }, 90_000);

  test("a change through one process is in effect through the other within milliseconds", async () => {
    // Per change: how long after its answer the first read through the other process that saw it
    // was sent (0 when the first read sent at once saw it), and how many reads saw the old value.
    const delays: number[] = [];
    let staleReads = 0;
    for (let windowSize = 41; windowSize <= 45; windowSize++) {
      // Both processes hold the configuration in their caches.
      const cached = new Set([
        (await call(deployment.url, "GET", "/api/get_config")).servedBy,
        (await call(deployment.url, "GET", "/api/get_config")).servedBy,
      ]);
      expect(cached.size).toBe(2);
      const changed = await call(deployment.url, "POST", "/api/update_config", { window_size: windowSize });
      expect(changed.status).toBe(200);
      const answeredAt = performance.now();
      const other = processUrl(changed.servedBy === "api-1" ? "api-2" : "api-1");
      for (let read = 0; ; read++) {
        const sentAt = performance.now();
        if ((await call(other, "GET", "/api/get_config")).body.window_size === windowSize) {
          delays.push(read === 0 ? 0 : sentAt - answeredAt);
          break;
        }
        staleReads++;
        if (sentAt - answeredAt > 1_000) throw new Error(`window_size ${windowSize} not seen through the other process within 1 s`);
      }
    }
    console.info(
      `a configuration change seen through the other process by reads sent after (ms): ${delays.map((d) => d.toFixed(1)).join(", ")}; stale reads: ${staleReads}`,
    );
    expect(Math.max(...delays)).toBeLessThan(1_000);
  });

  test("admin/cache/invalidate through one process clears what every process caches", async () => {
    const before = (await call(deployment.url, "GET", "/api/get_config")).body.window_size;
    await call(deployment.url, "GET", "/api/get_config");
    // A change that announces nothing (written with triggers off, as a restore does): both keep their copy.
    await sql.begin(async (tx) => {
      await tx`SET LOCAL session_replication_role = replica`;
      await tx`UPDATE project_config SET config = jsonb_set(config, '{window_size}', '60') WHERE project_id = 'default'`;
    });
    expect([
      (await call(deployment.apiUrls[0]!, "GET", "/api/get_config")).body.window_size,
      (await call(deployment.apiUrls[1]!, "GET", "/api/get_config")).body.window_size,
    ]).toEqual([before, before]);
    const invalidated = await call(deployment.url, "POST", "/api/admin/cache/invalidate", {});
    expect(invalidated.status).toBe(200);
    expect(invalidated.body.invalidated).toBe(true);
    const other = processUrl(invalidated.servedBy === "api-1" ? "api-2" : "api-1");
    const startedAt = performance.now();
    while ((await call(other, "GET", "/api/get_config")).body.window_size !== 60) {
      if (performance.now() - startedAt > 1_000) throw new Error("the other process still serves its copy 1 s after admin/cache/invalidate");
    }
  });
});

describe("a publish retried behind a balancer over two API processes", () => {
  const publish = (url: string, key: string, userId: string) =>
    call(
      url,
      "POST",
      "/api/publish_interaction",
      { user_id: userId, session_id: "s", interaction_data_list: [{ role: "User", content: "I keep bees" }] },
      { "idempotency-key": key },
    );
  const storedFor = async (userId: string) => {
    const [counts] = await sql<{ requests: number; interactions: number }[]>`
      SELECT (SELECT count(*)::int FROM requests WHERE user_id = ${userId}) AS requests,
             (SELECT count(*)::int FROM interactions WHERE user_id = ${userId}) AS interactions`;
    return counts;
  };

  test("the same Idempotency-Key sent to both processes at once, then again through the balancer, stores one request", async () => {
    const key = crypto.randomUUID();
    const attempts = await Promise.all([publish(deployment.apiUrls[0]!, key, "bea"), publish(deployment.apiUrls[1]!, key, "bea")]);
    const retries = [await publish(deployment.url, key, "bea"), await publish(deployment.url, key, "bea")];
    const answers = [...attempts, ...retries];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(retries.map((answer) => answer.servedBy))).toEqual(new Set(["api-1", "api-2"]));
    expect(new Set(answers.map((answer) => answer.body.request_id)).size).toBe(1);
    expect(await storedFor("bea")).toEqual({ requests: 1, interactions: 1 });
  });

  test("a publish answered by one process and retried through the other gets the first answer", async () => {
    const key = crypto.randomUUID();
    const first = await publish(deployment.apiUrls[0]!, key, "cid");
    const retry = await publish(deployment.apiUrls[1]!, key, "cid");
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.body).toEqual(first.body);
    expect(await storedFor("cid")).toEqual({ requests: 1, interactions: 1 });
  });
});
