import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { findTextEverywhere } from "@als/test-support/subject-scan.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

// Publishers keep writing for a user while the user is erased: each publish is answered 200 (it
// committed before the barrier, and the deletes took it) or 409 erasure_in_progress (nothing
// written), never a 5xx; nothing published before the erasure completed survives it.

let svc: TestService;
let tenant: Tenant;
const SUBJECT = `busy-${crypto.randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  // The publishers run far past a key's rate limit on purpose: the limit is not what is tested here.
  const unlimited = { perSecond: 1_000_000, burst: 1_000_000 };
  svc = await startTestService({ rateLimits: { search: unlimited, publish: unlimited, write: unlimited, read: unlimited, sign_in: unlimited } });
  tenant = await createTenant(svc.deps, "concurrent");
});
afterAll(() => svc.close());

const headers = () => bearer(tenant.fullKey);
const publish = (content: string) =>
  svc.call("POST", "/api/publish_interaction", { user_id: SUBJECT, session_id: `${SUBJECT}-s`, interaction_data_list: [{ role: "User", content }] }, headers());

test("a concurrent publisher for the subject gets 200 or 409, and nothing published before completion survives", async () => {
  // Enough rows that the deletes take a while, so publishes land before, during and after the barrier.
  for (let batch = 0; batch < 10; batch++) {
    const many = Array.from({ length: 100 }, (_, i) => ({ role: "User", content: `message ${batch}-${i} of ${SUBJECT}` }));
    expect(
      (await svc.call("POST", "/api/publish_interaction", { user_id: SUBJECT, session_id: `${SUBJECT}-s`, interaction_data_list: many }, headers())).status,
    ).toBe(200);
  }
  let completed = false;
  let stop = false;
  const answers: { status: number; body: any; afterCompletion: boolean; answeredAt: number }[] = [];
  /**
   * When the erasure was last known unfinished (its request, then each status read that found it
   * so, as sent): a publish answered before that committed before completion.
   */
  let unfinishedAt = 0;
  const publisher = async (lane: number) => {
    for (let i = 0; !stop; i++) {
      const afterCompletion = completed;
      const response = await publish(`lane ${lane} message ${i}`);
      answers.push({ ...response, afterCompletion, answeredAt: performance.now() });
      // In process, an embedded publish can settle without ever reaching the timer queue: yield, as a network would.
      await Bun.sleep(1);
    }
  };
  const lanes = [0, 1, 2, 3].map(publisher);
  let last: any;
  try {
    await Bun.sleep(30);
    const governance = { ...bearer(tenant.governanceSession) };
    // Unfinished when asked for, too: a fast erasure may be complete at the first status read.
    unfinishedAt = performance.now();
    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: SUBJECT, request_id: "concurrent" }, governance);
    expect(erased.status).toBe(202);
    for (let attempt = 0; attempt < 400 && !completed && last?.status !== "failed"; attempt++) {
      await Bun.sleep(25);
      const askedAt = performance.now();
      last = (await svc.call("GET", `/api/governance/purge-operations/${erased.body.purge_id}`, undefined, governance)).body;
      completed = last.status === "complete";
      if (!completed) unfinishedAt = askedAt;
    }
    await Bun.sleep(50);
  } finally {
    stop = true;
    await Promise.all(lanes);
  }
  expect(last).toMatchObject({ status: "complete" });
  const refusals = answers.filter((answer) => answer.status === 409).length;
  console.log(`publishes: ${answers.length}, refused while erasing: ${refusals}`);
  await svc.learningIdle();

  expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 409)).toEqual([]);
  for (const refused of answers.filter((answer) => answer.status === 409)) {
    expect(refused.body).toMatchObject({ error: "erasure_in_progress", detail: expect.stringContaining("being erased") });
    expect(refused.afterCompletion).toBe(false);
  }
  // Every publish answered while the erasure was still unfinished is gone; only later ones may survive.
  const surviving = new Set(
    (await svc.db.query<{ request_id: string }>("SELECT request_id FROM requests WHERE user_id = $1", [SUBJECT])).map((r) => r.request_id),
  );
  const acceptedBefore = answers
    .filter((answer) => answer.status === 200 && answer.answeredAt < unfinishedAt)
    .map((answer) => answer.body.request_id as string);
  expect(acceptedBefore.length).toBeGreaterThan(0);
  expect(acceptedBefore.filter((requestId) => surviving.has(requestId))).toEqual([]);
  // The bulk rows and everything else from before the erasure are nowhere in the project.
  expect(await findTextEverywhere(svc.db, `of ${SUBJECT}`, { orgId: tenant.orgId, projectId: "default" })).toEqual({});
}, 60_000);
