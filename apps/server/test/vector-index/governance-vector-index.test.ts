import { afterAll, beforeAll, expect, test } from "bun:test";
import { drainVectorOutbox, prepareVectorIndex } from "@als/core";
import { PushedPoints } from "@als/test-support/pushed-points.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";

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

test("the subject's points leave the vector index before the erasure completes; a neighbour's stay", async () => {
  for (const userId of ["vera", "walt"]) {
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
  await svc.learningIdle();
  // A drain before the erasure, as the sync loop would have done.
  await drainVectorOutbox({ db: svc.db, vectorIndex: pushed }, 100);
  expect(pointsOf("vera").length).toBe(2);

  const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "vera", request_id: "v-1" }, bearer(tenant.governanceSession));
  expect(erased.status).toBe(202);
  await svc.learningIdle();
  const status = await svc.call("GET", `/api/governance/purge-operations/${erased.body.purge_id}`, undefined, bearer(tenant.governanceSession));
  expect(status.body.status).toBe("complete");
  expect(pointsOf("vera")).toEqual([]);
  expect(pointsOf("walt").length).toBe(2);
  expect(await svc.db.query("SELECT row_id FROM vector_outbox WHERE org_id = $1", [tenant.orgId])).toEqual([]);
});
