import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drainVectorOutbox, prepareVectorIndex, runPurgeStep, startVectorSyncLoop } from "@als/core";
import { purgeOperations, vectorOutbox } from "@als/db";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { qdrantSkipReason, type TestQdrant, testQdrant } from "@als/test-support/qdrant.ts";
import { randomPort } from "@als/test-support/server-process.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant } from "@als/test-support/tenants.ts";
import { bothPaths as answeredBothWays } from "@als/test-support/vector-index-paths.ts";
import { QdrantVectorIndex, type VectorIndex, VectorIndexUnavailableError } from "@als/vector";

// Qdrant as the service keeps it beside PostgreSQL, on a real server (QDRANT_URL): filled from the
// record through the outbox, asked for the vector arm of ranked searches, rid of an erased user's
// points before the erasure completes, and brought up to date after a restart of the process (its
// collections kept: only what changed meanwhile is pushed) or of one killed as it made the
// collections, an outage of Qdrant (writes are taken and wait in the outbox) and the loss of Qdrant's
// storage while the service runs (made again and filled from the record by the sync loop).

const skipped = qdrantSkipReason !== undefined;
const qdrantTest = (title: string, body: () => Promise<void>) => test.skipIf(skipped)(skipped ? `${title} (skipped: ${qdrantSkipReason})` : title, body);

let svc: TestService;
let qdrant: TestQdrant;
let index: VectorIndex;
const drain = (into: VectorIndex) => drainVectorOutbox({ db: svc.db, vectorIndex: into }, 100);
/** The same collections on a Qdrant that does not answer: nothing listens on its port. */
const unreachable = () => new QdrantVectorIndex({ ...qdrant.settings, url: `http://127.0.0.1:${randomPort()}` });

const agentIds = (body: any) => body.agent_playbooks.map((p: any) => p.agent_playbook_id);
const searchAgents = (query: string) => svc.call("POST", "/api/search_agent_playbooks", { query, top_k: 5, threshold: 0, search_mode: "vector" });

/** The same request answered by pgvector and through Qdrant. */
const bothPaths = (path: string, body: object) => answeredBothWays(svc, index, path, body);

async function expectSameAsPgvector() {
  for (const search_mode of ["vector", "hybrid"]) {
    const { inSql, viaIndex } = await bothPaths("/api/search_agent_playbooks", { query: "reimbursement", top_k: 3, search_mode });
    expect(agentIds(viaIndex)).toEqual(agentIds(inSql));
    expect(agentIds(inSql).length).toBeGreaterThan(0);
  }
}

/** Rows of a table that have a vector: the points Qdrant must hold. */
const rowsWithVectors = async (table: string) =>
  (await svc.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE embedding IS NOT NULL`))[0]!.n;

async function expectEveryRowHeld() {
  for (const collection of ["profiles", "user_playbooks", "agent_playbooks", "interactions"] as const) {
    expect([collection, await qdrant.count(collection)]).toEqual([collection, await rowsWithVectors(collection)]);
  }
  expect(await rowsWithVectors("agent_playbooks")).toBe(4);
}

/** Whether a collection is missing on the server (it lost them). */
const collectionsMissing = () =>
  qdrant.count("agent_playbooks").then(
    () => false,
    () => true,
  );

beforeAll(async () => {
  if (skipped) return;
  svc = await startTestService();
  qdrant = testQdrant();
  await addAgentPlaybooks(svc, [
    { trigger: "a customer asks to get their money back", content: "Check the purchase date, then issue a refund", playbook_status: "APPROVED" },
    { trigger: "the user writes in Spanish", content: "Reply in Spanish", playbook_status: "APPROVED" },
    { trigger: "the service is down", content: "Share the status page link", playbook_status: "PENDING" },
  ]);
  await addUserPlaybooks(svc, [
    { user_id: "ivy", content: "Offer a refund when the order arrived broken", source: "chat" },
    { user_id: "jon", content: "Offer a refund and apologise for the delay", source: "email" },
  ]);
  index = qdrant.index();
  await prepareVectorIndex({ db: svc.db, vectorIndex: index });
  await drain(index);
  svc.deps.vectorIndex = index;
});
afterAll(async () => {
  if (skipped) return;
  await svc.close();
  await qdrant.drop();
});

describe("Qdrant beside PostgreSQL", () => {
  qdrantTest("a first start fills it from the record; it answers as pgvector does", async () => {
    expect(await qdrant.count("agent_playbooks")).toBe(3);
    expect(await qdrant.count("user_playbooks")).toBe(2);
    await expectSameAsPgvector();
  });

  qdrantTest("a write reaches it at the next drain, a delete leaves it; a row deleted before the drain is never served", async () => {
    const [added] = await addAgentPlaybooks(svc, [{ trigger: "a parcel is lost in transit", content: "Open a carrier claim", playbook_status: "APPROVED" }]);
    expect(await qdrant.count("agent_playbooks")).toBe(3);
    await drain(index);
    expect(await qdrant.count("agent_playbooks")).toBe(4);
    expect(agentIds((await searchAgents("my package never arrived")).body)[0]).toBe(added);

    expect((await svc.call("DELETE", "/api/delete_agent_playbook", { agent_playbook_id: added })).status).toBe(200);
    // Qdrant still names it; the rows are read again from PostgreSQL.
    expect(await qdrant.count("agent_playbooks")).toBe(4);
    expect(agentIds((await searchAgents("my package never arrived")).body)).not.toContain(added);
    await drain(index);
    expect(await qdrant.count("agent_playbooks")).toBe(3);
  });

  qdrantTest("an erasure completes only once Qdrant has dropped the subject's points, waiting out an outage; a neighbour's stay", async () => {
    const tenant = await createTenant(svc.deps, "qdrant-erasure");
    for (const userId of ["vera", "walt"]) {
      const profile = { user_profiles: [{ user_id: userId, content: `${userId} likes green tea` }] };
      expect((await svc.call("POST", "/api/add_user_profile", profile, bearer(tenant.fullKey))).status).toBe(200);
      const playbook = { user_playbooks: [{ user_id: userId, content: `Offer ${userId} green tea` }] };
      expect((await svc.call("POST", "/api/add_user_playbook", playbook, bearer(tenant.fullKey))).status).toBe(200);
    }
    await svc.learningIdle();
    await drain(index);
    const pointsOf = async (userId: string) =>
      (await qdrant.count("profiles", { key: "user_id", value: userId })) + (await qdrant.count("user_playbooks", { key: "user_id", value: userId }));
    expect([await pointsOf("vera"), await pointsOf("walt")]).toEqual([2, 2]);

    svc.deps.vectorIndex = unreachable();
    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "vera", request_id: "v-1" }, bearer(tenant.governanceSession));
    expect(erased.status).toBe(202);
    await svc.learningIdle();
    const scope = { orgId: tenant.orgId, projectId: "default" };
    const held = await purgeOperations.findPurge(svc.db, scope, erased.body.purge_id);
    expect([held?.status, held?.phase, held?.error_code]).toEqual(["retrying", "check", "vector_index_pending"]);
    expect(await pointsOf("vera")).toBe(2);

    svc.deps.vectorIndex = index;
    svc.clock.now += 60;
    await runPurgeStep(svc.deps, scope, erased.body.purge_id);
    expect((await purgeOperations.findPurge(svc.db, scope, erased.body.purge_id))?.status).toBe("succeeded");
    expect([await pointsOf("vera"), await pointsOf("walt")]).toEqual([0, 2]);
  });

  qdrantTest("during an outage searches answer 503 and writes wait in the outbox; a restarted process pushes only those", async () => {
    svc.deps.vectorIndex = unreachable();
    const refused = await searchAgents("reimbursement");
    expect([refused.status, refused.body.error]).toEqual([503, "storage_unavailable"]);
    const [late] = await addAgentPlaybooks(svc, [
      { trigger: "the user asks for an invoice copy", content: "Send the PDF invoice", playbook_status: "APPROVED" },
    ]);
    await expect(drain(svc.deps.vectorIndex)).rejects.toBeInstanceOf(VectorIndexUnavailableError);
    expect(await vectorOutbox.countPending(svc.db)).toBe(1);

    // A process started again over the collections Qdrant kept: nothing to rebuild, the outbox holds what it missed.
    index = qdrant.index();
    await prepareVectorIndex({ db: svc.db, vectorIndex: index });
    expect(await vectorOutbox.countPending(svc.db)).toBe(1);
    await drain(index);
    expect(await vectorOutbox.countPending(svc.db)).toBe(0);
    svc.deps.vectorIndex = index;
    expect(agentIds((await searchAgents("send me a copy of my invoice")).body)[0]).toBe(late);
    await expectSameAsPgvector();
  });

  qdrantTest("a start killed once it made the collections has noted the rows: the next start's drains fill them", async () => {
    await qdrant.drop();
    const killedOnceMade: VectorIndex = {
      ensureCollections: async (beforeMaking) => {
        await index.ensureCollections(beforeMaking);
        throw new Error("killed");
      },
      upsert: (collection, points) => index.upsert(collection, points),
      delete: (collection, refs) => index.delete(collection, refs),
      search: (collection, query) => index.search(collection, query),
    };
    await expect(prepareVectorIndex({ db: svc.db, vectorIndex: killedOnceMade })).rejects.toThrow("killed");
    expect(await qdrant.count("agent_playbooks")).toBe(0);

    index = qdrant.index();
    await prepareVectorIndex({ db: svc.db, vectorIndex: index });
    await drain(index);
    await expectEveryRowHeld();
    await expectSameAsPgvector();
  });

  qdrantTest("a Qdrant that lost its storage while the service runs answers 503; the sync loop makes its collections again and fills them", async () => {
    await qdrant.drop();
    const refused = await searchAgents("reimbursement");
    expect([refused.status, refused.body.error]).toEqual([503, "storage_unavailable"]);
    const errors: unknown[] = [];
    // As the worker runs it, checking the collections every second instead of every 30.
    const loop = startVectorSyncLoop({ db: svc.db, vectorIndex: index }, (error) => errors.push(error), 1000);
    try {
      const deadline = Date.now() + 20_000;
      while ((await collectionsMissing()) || (await vectorOutbox.countPending(svc.db)) > 0) {
        if (Date.now() > deadline) throw new Error("the sync loop did not fill Qdrant again within 20 s");
        await Bun.sleep(200);
      }
    } finally {
      loop.stop();
      await loop.idle();
    }
    expect(errors).toEqual([]);
    await expectEveryRowHeld();
    await expectSameAsPgvector();
  });
});
