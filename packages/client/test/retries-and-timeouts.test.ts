import { afterEach, describe, expect, test } from "bun:test";
import { ClientError, createClient } from "@als/client";

/** What the stand-in server received; a copy, as Bun does not keep a Request readable once its handler has answered. */
type Received = { method: string; url: string; headers: Headers; body: string };

/**
 * A tiny stand-in server on 127.0.0.1 that answers each request with the next of `answers` (the
 * last one repeats) and records what it received: these tests exercise the client's own policy
 * (headers, retries, timeouts), which the real server cannot be made to fail on cue.
 */
function fakeServer(answers: (() => Response | Promise<Response>)[]) {
  const received: Received[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push({ method: request.method, url: request.url, headers: new Headers(request.headers), body: await request.text() });
      return (answers[received.length - 1] ?? answers.at(-1)!)();
    },
  });
  servers.push(server);
  return { received, baseUrl: `http://127.0.0.1:${server.port}` };
}

const servers: ReturnType<typeof Bun.serve>[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

const noProfiles = () => Response.json({ success: true, user_profiles: [], msg: null });
const unavailable = () => Response.json({ error: "storage_unavailable", detail: "storage is unavailable" }, { status: 503 });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.unreachable("the call succeeded"),
    (reason: unknown) => reason,
  );
}

describe("what the client sends", () => {
  test("a JSON body, the bearer key and a correlation id per call", async () => {
    const fake = fakeServer([() => Response.json({ success: true, added_count: 1, profile_ids: ["p"], msg: null })]);
    const client = createClient({ baseUrl: `${fake.baseUrl}/`, apiKey: "key-1" });
    await client.profiles.add({ user_profiles: [{ user_id: "ana", content: "Likes tea" }] });
    await client.profiles.add({ user_profiles: [{ user_id: "ana", content: "Likes coffee" }] });
    const [first, second] = fake.received as [Received, Received];
    expect(first.method).toBe("POST");
    expect(new URL(first.url).pathname).toBe("/api/add_user_profile");
    expect(first.headers.get("content-type")).toBe("application/json");
    expect(first.headers.get("authorization")).toBe("Bearer key-1");
    expect(JSON.parse(first.body)).toEqual({ user_profiles: [{ user_id: "ana", content: "Likes tea" }] });
    expect(first.headers.get("x-correlation-id")).toMatch(UUID);
    expect(second.headers.get("x-correlation-id")).not.toBe(first.headers.get("x-correlation-id"));
  });

  test("a GET sends no body and no content-type, a path parameter leaves the query", async () => {
    const fake = fakeServer([() => Response.json({})]);
    await createClient({ baseUrl: fake.baseUrl }).aggregation.get({ operation_id: "op 1/2" });
    const [request] = fake.received as [Received];
    expect(request.url).toBe(`${fake.baseUrl}/api/playbook_aggregation_operations/op%201%2F2`);
    expect(request.body).toBe("");
    expect(request.headers.get("content-type")).toBeNull();
    expect(request.headers.get("authorization")).toBeNull();
  });
});

describe("what the client reads", () => {
  test("with validateResponses, a success body its output schema refuses is an invalid_response", async () => {
    const fake = fakeServer([() => Response.json({ success: "yes", user_profiles: [], msg: null })]);
    // Without it the body is handed over as it came: the client trusts the server's own allow-list.
    const unchecked: unknown = await createClient({ baseUrl: fake.baseUrl }).profiles.getAll();
    expect(unchecked).toEqual({ success: "yes", user_profiles: [], msg: null });
    await expect(createClient({ baseUrl: fake.baseUrl, validateResponses: true }).profiles.getAll()).rejects.toMatchObject({
      status: 200,
      code: "invalid_response",
      message: expect.stringContaining("success"),
    });
  });
});

describe("retries", () => {
  test("an idempotent call is repeated after two 503s and succeeds, with the same correlation id", async () => {
    const fake = fakeServer([unavailable, unavailable, noProfiles]);
    const result = await createClient({ baseUrl: fake.baseUrl, retries: 2 }).profiles.getAll({ user_id: "ana" });
    expect(result.user_profiles).toEqual([]);
    expect(fake.received).toHaveLength(3);
    expect(new Set(fake.received.map((request) => request.headers.get("x-correlation-id"))).size).toBe(1);
  });

  test("retries run out: the last answer is thrown", async () => {
    const fake = fakeServer([unavailable]);
    const error = await rejectionOf(createClient({ baseUrl: fake.baseUrl, retries: 1 }).profiles.deleteAll());
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ status: 503, code: "storage_unavailable", message: "storage is unavailable" });
    expect(fake.received).toHaveLength(2);
  });

  test("a POST that takes an Idempotency-Key is repeated with the same key; a key the caller gives is the one sent", async () => {
    const published = () =>
      Response.json({
        success: true,
        message: "m",
        request_id: "r",
        storage_routing: { storage_type: "t", storage_label: "l" },
        learning_status: "deferred",
        interactions_created: 1,
        profiles_created: 0,
        user_playbooks_created: 0,
        warnings: [],
      });
    const fake = fakeServer([unavailable, unavailable, published]);
    const client = createClient({ baseUrl: fake.baseUrl, retries: 2 });
    const input = { user_id: "ana", session_id: "s", interaction_data_list: [{ content: "hi" }] };
    expect((await client.interactions.publish(input)).request_id).toBe("r");
    const keys = fake.received.map((request) => request.headers.get("idempotency-key"));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^"[0-9a-f-]{36}"$/);
    await client.interactions.publish(input, { idempotencyKey: "mine-1" });
    expect(fake.received.at(-1)!.headers.get("idempotency-key")).toBe('"mine-1"');
  });

  test("a POST without an Idempotency-Key is never repeated, and sends none", async () => {
    const fake = fakeServer([unavailable, () => Response.json({ success: true, accepted: true, message: "m", request_id: "r" })]);
    const error = await rejectionOf(createClient({ baseUrl: fake.baseUrl, retries: 3 }).interactions.finalizeSession({ user_id: "ana", session_id: "s" }));
    expect(error).toMatchObject({ status: 503, code: "storage_unavailable" });
    expect(fake.received).toHaveLength(1);
    expect(fake.received[0]!.headers.get("idempotency-key")).toBeNull();
  });

  test("a 429 is repeated after the wait its Retry-After asks for", async () => {
    const fake = fakeServer([() => new Response("slow down", { status: 429, headers: { "retry-after": "1" } }), noProfiles]);
    const started = performance.now();
    await createClient({ baseUrl: fake.baseUrl }).profiles.getAll({});
    expect(performance.now() - started).toBeGreaterThanOrEqual(990);
    expect(fake.received).toHaveLength(2);
  });

  test("a 4xx other than 429 is not repeated, and a body that is not the contract's is an http_error", async () => {
    const fake = fakeServer([() => new Response("<html>teapot</html>", { status: 418 })]);
    const error = await rejectionOf(createClient({ baseUrl: fake.baseUrl }).profiles.getAll({}));
    expect(error).toMatchObject({ status: 418, code: "http_error" });
    expect(fake.received).toHaveLength(1);
  });

  test("a network error is repeated for an idempotent call", async () => {
    let attempts = 0;
    const flaky = async () => {
      attempts += 1;
      if (attempts < 3) throw new TypeError("connection reset");
      return noProfiles();
    };
    const result = await createClient({ baseUrl: "http://127.0.0.1:1", fetch: flaky, retries: 2 }).profiles.getAll({});
    expect(result.success).toBe(true);
    expect(attempts).toBe(3);
  });
});

describe("timeouts", () => {
  const stalls = () => new Promise<Response>((resolve) => setTimeout(() => resolve(noProfiles()), 3_000));

  test("an attempt that outlasts the timeout fails with code timeout, and is not repeated", async () => {
    const fake = fakeServer([stalls]);
    const started = performance.now();
    const error = await rejectionOf(createClient({ baseUrl: fake.baseUrl, timeoutMs: 200 }).profiles.getAll({}));
    expect(error).toBeInstanceOf(ClientError);
    expect(error).toMatchObject({ status: 0, code: "timeout" });
    expect((error as ClientError).details.correlation_id).toMatch(UUID);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(fake.received).toHaveLength(1);
  });

  test("a call's own timeoutMs wins over the client's", async () => {
    const fake = fakeServer([stalls]);
    const error = await rejectionOf(createClient({ baseUrl: fake.baseUrl }).profiles.getAll({}, { timeoutMs: 100 }));
    expect(error).toMatchObject({ code: "timeout", message: expect.stringContaining("100 ms") });
  });

  test("the caller's abort signal ends the call with its reason", async () => {
    const fake = fakeServer([stalls]);
    const controller = new AbortController();
    const call = createClient({ baseUrl: fake.baseUrl }).profiles.getAll({}, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("user left")), 50);
    expect(await rejectionOf(call)).toEqual(new Error("user left"));
  });
});
