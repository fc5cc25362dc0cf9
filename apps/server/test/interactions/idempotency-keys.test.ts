import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { IDEMPOTENCY_KEY_TTL_SECONDS, pruneExpiredIdempotencyKeys } from "@als/core";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant } from "@als/test-support/tenants.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const body = (userId: string, content: string) => ({ user_id: userId, session_id: "s", interaction_data_list: [{ role: "User", content }] });
const publish = (payload: object, key?: string, headers: Record<string, string> = {}) =>
  svc.call("POST", "/api/publish_interaction", payload, { ...headers, ...(key !== undefined && { "idempotency-key": key }) });
const requestsOf = async (userId: string) =>
  (await svc.db.query<{ request_id: string }>("SELECT request_id FROM requests WHERE user_id = $1 ORDER BY created_at", [userId])).map((row) => row.request_id);
const interactionCount = async (userId: string) =>
  (await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM interactions WHERE user_id = $1", [userId]))[0]!.n;

describe("publish_interaction with an Idempotency-Key", () => {
  test("a retry with the same key and body gets the first answer again and stores nothing more", async () => {
    const first = await publish(body("ida", "I grow tomatoes"), "key-1");
    expect(first.status).toBe(200);
    const again = await publish(body("ida", "I grow tomatoes"), "key-1");
    expect(again).toEqual(first);
    // The draft's quoted structured-field form is the same key.
    expect(await publish(body("ida", "I grow tomatoes"), '"key-1"')).toEqual(first);
    expect(await requestsOf("ida")).toEqual([first.body.request_id]);
    expect(await interactionCount("ida")).toBe(1);
    // Without a key, or with another, the same body is a new request.
    expect((await publish(body("ida", "I grow tomatoes"))).body.request_id).not.toBe(first.body.request_id);
    expect((await publish(body("ida", "I grow tomatoes"), "key-2")).body.request_id).not.toBe(first.body.request_id);
    expect((await requestsOf("ida")).length).toBe(3);
  });

  test("the same key on another body answers 422 idempotency_key_reused naming the header, and stores nothing", async () => {
    const first = await publish(body("jon", "I sail"), "key-jon");
    expect(first.status).toBe(200);
    for (const other of [body("jon", "I sail on weekends"), { ...body("jon", "I sail"), session_id: "s2" }]) {
      const refused = await publish(other, "key-jon");
      expect([refused.status, refused.body.error]).toEqual([422, "idempotency_key_reused"]);
      expect(refused.body.detail).toContain("Idempotency-Key 'key-jon'");
    }
    expect(await requestsOf("jon")).toEqual([first.body.request_id]);
    expect(await interactionCount("jon")).toBe(1);
  });

  test("concurrent attempts with one key store one request, and every attempt answers with it", async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => publish(body("kim", "I play the cello"), "key-kim")));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const ids = new Set(answers.map((answer) => answer.body.request_id));
    expect(ids.size).toBe(1);
    expect(await requestsOf("kim")).toEqual([...ids]);
    expect(await interactionCount("kim")).toBe(1);
  });

  test("a malformed key answers 422 naming the header, and stores nothing", async () => {
    for (const key of ["", "   ", "x".repeat(256), '"unterminated', "naïve"]) {
      const refused = await publish(body("lea", "hello"), key);
      expect([key, refused.status, refused.body.error]).toEqual([key, 422, "validation_error"]);
      expect(refused.body.message).toContain("Idempotency-Key");
    }
    expect(await requestsOf("lea")).toEqual([]);
  });

  test("keys are kept per organisation and project: another tenant's same key is its own request", async () => {
    const tenant = await createTenant(svc.deps, "idempotency");
    const local = await publish(body("max", "I run"), "shared-key");
    const theirs = await publish(body("max", "I run"), "shared-key", bearer(tenant.fullKey));
    expect([local.status, theirs.status]).toEqual([200, 200]);
    expect(theirs.body.request_id).not.toBe(local.body.request_id);
    const again = await publish(body("max", "I run"), "shared-key", bearer(tenant.fullKey));
    expect(again.body.request_id).toBe(theirs.body.request_id);
  });

  test("a key is kept 24 hours: after that the same key publishes anew, and the prune deletes the expired key", async () => {
    const first = await publish(body("ned", "I bake bread"), "key-ned");
    svc.clock.now += IDEMPOTENCY_KEY_TTL_SECONDS - 1;
    expect((await publish(body("ned", "I bake bread"), "key-ned")).body.request_id).toBe(first.body.request_id);
    svc.clock.now += 1;
    const keys = () => svc.db.query("SELECT idempotency_key FROM idempotency_keys WHERE user_id = 'ned'");
    expect(await pruneExpiredIdempotencyKeys(svc.deps)).toBeGreaterThanOrEqual(1);
    expect(await keys()).toEqual([]);
    const later = await publish(body("ned", "I bake bread"), "key-ned");
    expect(later.body.request_id).not.toBe(first.body.request_id);
    expect(await keys()).toEqual([{ idempotency_key: "key-ned" }]);
    expect((await requestsOf("ned")).length).toBe(2);
  });

  test("OpenAPI declares the header on publish, the add_* writes and session_outcome, and idempotency_key_reused among their 422 errors", async () => {
    const spec = (await svc.call("GET", "/openapi.json")).body;
    for (const path of ["/api/publish_interaction", "/api/add_user_profile", "/api/add_user_playbook", "/api/add_agent_playbook", "/api/session_outcome"]) {
      const operation = spec.paths[path].post;
      expect(operation.parameters).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }));
      expect(operation.responses["422"].description).toContain("idempotency_key_reused");
    }
    expect(JSON.stringify(spec.paths["/api/search"].post.parameters ?? [])).not.toContain("Idempotency-Key");
  });
});

/** The writes whose whole answer is known in their transaction: the key and the answer commit with the records. */
describe("add_* records with an Idempotency-Key", () => {
  const add = (path: string, payload: object, key: string) => svc.call("POST", path, payload, { "idempotency-key": key });
  const count = async (table: string, where: string) => (await svc.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0]!.n;

  test("add_user_profile, add_user_playbook and add_agent_playbook: a retry gets the first answer and adds nothing; another body answers 422", async () => {
    const cases = [
      {
        path: "/api/add_user_profile",
        payload: (content: string) => ({ user_profiles: [{ user_id: "oli", content }] }),
        stored: () => count("profiles", "user_id = 'oli'"),
      },
      {
        path: "/api/add_user_playbook",
        payload: (content: string) => ({ user_playbooks: [{ user_id: "oli", content, trigger: "asked about bikes" }] }),
        stored: () => count("user_playbooks", "user_id = 'oli'"),
      },
      {
        path: "/api/add_agent_playbook",
        payload: (content: string) => ({ agent_playbooks: [{ agent_version: "agent-v0", content, trigger: "asked about bikes" }] }),
        stored: () => count("agent_playbooks", "content LIKE 'Oli %'"),
      },
    ];
    expect((await publish(body("oli", "I cycle to work"), "key-oli-publish")).status).toBe(200);
    for (const { path, payload, stored } of cases) {
      const first = await add(path, payload("Oli likes bikes"), `${path}-key`);
      expect([path, first.status]).toEqual([path, 200]);
      expect(await add(path, payload("Oli likes bikes"), `${path}-key`)).toEqual(first);
      expect([path, await stored()]).toEqual([path, 1]);
      const refused = await add(path, payload("Oli likes boats"), `${path}-key`);
      expect([path, refused.status, refused.body.error]).toEqual([path, 422, "idempotency_key_reused"]);
      // A key used on publish is another request here.
      const elsewhere = await add(path, payload("Oli likes bikes"), "key-oli-publish");
      expect([path, elsewhere.status, elsewhere.body.error]).toEqual([path, 422, "idempotency_key_reused"]);
      expect([path, await stored()]).toEqual([path, 1]);
    }
  });

  test("concurrent add_user_profile attempts with one key add the profile once and answer alike", async () => {
    const payload = { user_profiles: [{ user_id: "pia", content: "Pia knits" }] };
    const answers = await Promise.all(Array.from({ length: 5 }, () => add("/api/add_user_profile", payload, "key-pia")));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((answer) => JSON.stringify(answer.body))).size).toBe(1);
    expect(await count("profiles", "user_id = 'pia'")).toBe(1);
  });
});

/**
 * session_outcome is final for its session: without a key an exact retry answers recorded false; with
 * one, a retry gets the first answer (recorded true) whichever attempt stored it.
 */
describe("session_outcome with an Idempotency-Key", () => {
  const report = (outcome: string, key: string) =>
    svc.call("POST", "/api/session_outcome", { session_id: "s-rex", outcome, occurred_at: 1_700_000_000 }, { "idempotency-key": key });
  const outcomesOfRex = async () =>
    (await svc.db.query<{ outcome: string }>("SELECT outcome FROM session_outcomes WHERE session_id = 's-rex'")).map((row) => row.outcome);

  test("a retry gets the first answer and stores nothing more; another body answers 422 and changes nothing", async () => {
    expect((await publish({ ...body("rex", "I fix clocks"), session_id: "s-rex" })).status).toBe(200);
    const first = await report("success", "key-rex");
    expect([first.status, first.body.recorded]).toEqual([200, true]);
    expect(await report("success", "key-rex")).toEqual(first);
    const refused = await report("failure", "key-rex");
    expect([refused.status, refused.body.error]).toEqual([422, "idempotency_key_reused"]);
    expect(await outcomesOfRex()).toEqual(["success"]);
    // The key is kept with the session's user, so that it is erased with them.
    expect(await svc.db.query("SELECT user_id FROM idempotency_keys WHERE idempotency_key = 'key-rex'")).toEqual([{ user_id: "rex" }]);
  });

  test("concurrent attempts with one key record one outcome and all answer recorded true", async () => {
    expect((await publish({ ...body("sue", "I knit"), session_id: "s-sue" })).status).toBe(200);
    const attempt = () =>
      svc.call("POST", "/api/session_outcome", { session_id: "s-sue", outcome: "success", occurred_at: 1_700_000_000 }, { "idempotency-key": "key-sue" });
    const answers = await Promise.all(Array.from({ length: 4 }, attempt));
    expect(answers.map((answer) => [answer.status, answer.body.recorded])).toEqual(answers.map(() => [200, true]));
    expect(new Set(answers.map((answer) => answer.body.outcome_id)).size).toBe(1);
    expect(await svc.db.query("SELECT count(*)::int AS n FROM session_outcomes WHERE session_id = 's-sue'")).toEqual([{ n: 1 }]);
  });

  test("a session with no published request answers 404 and keeps no key", async () => {
    const missing = await svc.call(
      "POST",
      "/api/session_outcome",
      { session_id: "s-none", outcome: "success", occurred_at: 1_700_000_000 },
      { "idempotency-key": "key-none" },
    );
    expect(missing.status).toBe(404);
    expect(await svc.db.query("SELECT idempotency_key FROM idempotency_keys WHERE idempotency_key = 'key-none'")).toEqual([]);
  });
});
