import { afterAll, beforeAll, expect, test } from "bun:test";
import { drainVectorOutbox, prepareVectorIndex, runPurgeStep } from "@als/core";
import { purgeOperations } from "@als/db";
import { PushedPoints } from "@als/test-support/pushed-points.ts";
import { randomPort } from "@als/test-support/server-process.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";
import { QdrantVectorIndex } from "@als/vector";

// With a vector index kept beside PostgreSQL (Qdrant in service; a stand-in here), an erasure is
// complete only once the index has dropped the subject's points: the deletes note them in the
// outbox, and the final check drains it up to the mark of the deletes.

let svc: TestService;
let tenant: Tenant;
const pushed = new PushedPoints();

beforeAll(async () => {
  svc = await startTestService();
  svc.deps.vectorIndex = pushed;
  await prepareVectorIndex({ db: svc.db, vectorIndex: pushed });
  tenant = await createTenant(svc.deps, "vectors");
});
afterAll(() => svc.close());

const pointsOf = (userId: string) => [...pushed.points.values()].filter((point) => point.payload.user_id === userId);

async function addLearnings(userId: string) {
  const added = await svc.call(
    "POST",
    "/api/add_user_profile",
    { user_profiles: [{ user_id: userId, content: `${userId} likes tea` }] },
    bearer(tenant.fullKey),
  );
  expect(added.status).toBe(200);
  const playbook = await svc.call(
    "POST",
    "/api/add_user_playbook",
    { user_playbooks: [{ user_id: userId, content: `Offer ${userId} tea` }] },
    bearer(tenant.fullKey),
  );
  expect(playbook.status).toBe(200);
}

const purgeStatus = async (purgeId: string) =>
  (await svc.call("GET", `/api/governance/purge-operations/${purgeId}`, undefined, bearer(tenant.governanceSession))).body;

test("the subject's points leave the vector index before the erasure completes; a neighbour's stay", async () => {
  for (const userId of ["vera", "walt"]) await addLearnings(userId);
  await svc.learningIdle();
  // A drain before the erasure, as the sync loop would have done.
  await drainVectorOutbox({ db: svc.db, vectorIndex: pushed }, 100);
  expect(pointsOf("vera").length).toBe(2);

  const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "vera", request_id: "v-1" }, bearer(tenant.governanceSession));
  expect(erased.status).toBe(202);
  await svc.learningIdle();
  expect((await purgeStatus(erased.body.purge_id)).status).toBe("complete");
  expect(pointsOf("vera")).toEqual([]);
  expect(pointsOf("walt").length).toBe(2);
  expect(await svc.db.query("SELECT row_id FROM vector_outbox WHERE org_id = $1", [tenant.orgId])).toEqual([]);
});

test("a vector index out of reach holds the erasure at its check through any number of attempts; it completes once the index is back", async () => {
  await addLearnings("yuri");
  await svc.learningIdle();
  await drainVectorOutbox({ db: svc.db, vectorIndex: pushed }, 100);
  expect(pointsOf("yuri").length).toBe(2);

  // Qdrant restarting: nothing listens on its port.
  svc.deps.vectorIndex = new QdrantVectorIndex({ url: `http://127.0.0.1:${randomPort()}` });
  try {
    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "yuri", request_id: "y-1" }, bearer(tenant.governanceSession));
    expect(erased.status).toBe(202);
    await svc.learningIdle();
    const scope = { orgId: tenant.orgId, projectId: "default" };
    // More attempts than a failing step gets before it fails for good.
    for (let attempt = 0; attempt < 7; attempt++) {
      svc.clock.now += 3600;
      await runPurgeStep(svc.deps, scope, erased.body.purge_id);
    }
    // As the record holds it (the governance session would have expired by this clock).
    const held = await purgeOperations.findPurge(svc.db, scope, erased.body.purge_id);
    expect([held?.status, held?.phase, held?.error_code, held!.attempts > 5]).toEqual(["retrying", "check", "vector_index_pending", true]);
    expect(pointsOf("yuri").length).toBe(2);

    svc.deps.vectorIndex = pushed;
    svc.clock.now += 3600;
    await runPurgeStep(svc.deps, scope, erased.body.purge_id);
    expect((await purgeOperations.findPurge(svc.db, scope, erased.body.purge_id))?.status).toBe("succeeded");
    expect(pointsOf("yuri")).toEqual([]);
  } finally {
    svc.deps.vectorIndex = pushed;
  }
});
