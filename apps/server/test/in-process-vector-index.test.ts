import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutboxFollower } from "@als/core";
import { vectorOutbox } from "@als/db";
import { InProcessVectorIndex } from "@als/vector";
import { testMode } from "../../../test/support/database.ts";
import { addAgentPlaybooks, addUserPlaybooks } from "../../../test/support/playbooks.ts";
import { startTestService, type TestService } from "../../../test/support/service.ts";
import { bearer, createTenant, type Tenant } from "../../../test/support/tenants.ts";

// The embedded mode's in-process vector index (OutboxFollower over an InProcessVectorIndex) must
// answer like pgvector, see every write that committed before a search, survive a restart from its
// snapshot plus the outbox, and drop an erased user's points from memory and disk. It follows the
// outbox by position, which is sound only on PGlite's one session: embedded mode only.
const embeddedOnly = testMode !== "embedded";

let svc: TestService;
let directory: string;
let follower: OutboxFollower;

const agentIds = (body: any) => body.agent_playbooks.map((p: any) => p.agent_playbook_id);
const userPlaybookIds = (body: any) => body.user_playbooks.map((p: any) => p.user_playbook_id);
const searchAgents = (query: string, extra: object = {}) =>
  svc.call("POST", "/api/search_agent_playbooks", { query, top_k: 5, threshold: 0, search_mode: "vector", ...extra });

/** The same request answered by PGlite's pgvector and by the in-process index. */
async function bothPaths(path: string, body: object) {
  svc.deps.vectorIndex = undefined;
  const inSql = await svc.call("POST", path, body);
  svc.deps.vectorIndex = follower;
  const viaIndex = await svc.call("POST", path, body);
  expect(inSql.status).toBe(200);
  expect(viaIndex.status).toBe(200);
  return { inSql: inSql.body, viaIndex: viaIndex.body };
}

async function openFollower(): Promise<OutboxFollower> {
  const opened = await OutboxFollower.open(svc.db, directory);
  // Searches go to PostgreSQL until the first catch-up is done.
  await opened.catchUp();
  await Bun.sleep(0);
  return opened;
}

beforeAll(async () => {
  if (embeddedOnly) return;
  svc = await startTestService();
  directory = mkdtempSync(join(tmpdir(), "follower-"));
  await addAgentPlaybooks(svc, [
    { trigger: "a customer asks to get their money back", content: "Check the purchase date, then issue a refund", playbook_status: "APPROVED" },
    { trigger: "the user writes in Spanish", content: "Reply in Spanish", playbook_status: "APPROVED" },
    { trigger: "the service is down", content: "Share the status page link", playbook_status: "PENDING" },
  ]);
  await addUserPlaybooks(svc, [
    { user_id: "ivy", content: "Offer a refund when the order arrived broken", source: "chat" },
    { user_id: "jon", content: "Offer a refund and apologise for the delay", source: "email" },
  ]);
  follower = await openFollower();
  svc.deps.vectorIndex = follower;
});
afterAll(async () => {
  if (embeddedOnly) return;
  await svc.close();
  rmSync(directory, { recursive: true, force: true });
});

describe.skipIf(embeddedOnly)("the in-process vector index (embedded mode)", () => {
  test("answers project-wide searches with the rows and order of pgvector, filters included", async () => {
    expect(follower.serves("agent_playbooks", { scope: { orgId: "o", projectId: "p" }, must: [] })).toBe(true);
    for (const search_mode of ["vector", "hybrid"]) {
      for (const request of [{ query: "reimbursement" }, { query: "outage", threshold: 0, playbook_status_filter: ["PENDING"] }]) {
        const { inSql, viaIndex } = await bothPaths("/api/search_agent_playbooks", { top_k: 3, search_mode, ...request });
        expect(agentIds(viaIndex)).toEqual(agentIds(inSql));
        expect(agentIds(inSql).length).toBeGreaterThan(0);
      }
      const users = await bothPaths("/api/search_user_playbooks", { query: "refund", threshold: 0, source: "email", search_mode });
      expect(userPlaybookIds(users.viaIndex)).toEqual(userPlaybookIds(users.inSql));
      expect(userPlaybookIds(users.inSql).length).toBe(1);
    }
  });

  test("leaves one user's search to PostgreSQL, and interactions too", () => {
    const scope = { orgId: "o", projectId: "p" };
    expect(follower.serves("user_playbooks", { scope, must: [{ key: "user_id", equals: "ivy" }] })).toBe(false);
    expect(follower.serves("interactions", { scope, must: [] })).toBe(false);
  });

  test("a search sees every write that committed before it, with no sync pass in between", async () => {
    const [added] = await addAgentPlaybooks(svc, [{ trigger: "a parcel is lost in transit", content: "Open a carrier claim", playbook_status: "APPROVED" }]);
    expect(agentIds((await searchAgents("my package never arrived")).body)[0]).toBe(added);
    const deleted = await svc.call("DELETE", "/api/delete_agent_playbook", { agent_playbook_id: added });
    expect(deleted.status).toBe(200);
    expect(agentIds((await searchAgents("my package never arrived")).body)).not.toContain(added);
  });

  test("restarts from its snapshot and replays only what the outbox kept since (a process killed before saving)", async () => {
    await follower.drain();
    expect(await vectorOutbox.countPending(svc.db)).toBe(0);
    const [late] = await addAgentPlaybooks(svc, [
      { trigger: "the user asks for an invoice copy", content: "Send the PDF invoice", playbook_status: "APPROVED" },
    ]);
    await follower.catchUp();
    // Pushed but not saved: the entry stays in the outbox for the next start.
    expect(await vectorOutbox.countPending(svc.db)).toBe(1);

    const before = agentIds((await searchAgents("send me a copy of my invoice")).body);
    expect(before[0]).toBe(late);
    // The old follower is dropped without closing, as a killed process would leave it.
    follower = await openFollower();
    svc.deps.vectorIndex = follower;
    // Started from the snapshot: a rebuild would have noted every row again.
    expect(await vectorOutbox.countPending(svc.db)).toBe(1);
    expect(agentIds((await searchAgents("send me a copy of my invoice")).body)).toEqual(before);
    expect(agentIds((await searchAgents("reimbursement", { search_mode: "hybrid" })).body).length).toBeGreaterThan(0);
  });

  test("a snapshot of another database is not read: the index is rebuilt from its own record", async () => {
    const other = await startTestService();
    try {
      const [own] = await addAgentPlaybooks(other, [{ trigger: "a customer asks to get their money back", content: "Say no", playbook_status: "APPROVED" }]);
      other.deps.vectorIndex = await OutboxFollower.open(other.db, directory);
      await (other.deps.vectorIndex as OutboxFollower).catchUp();
      const found = await other.call("POST", "/api/search_agent_playbooks", { query: "reimbursement", threshold: 0, search_mode: "vector" });
      expect(agentIds(found.body)).toEqual([own]);
    } finally {
      await other.close();
    }
  });

  test("an erased user's points leave the index and its snapshot on disk", async () => {
    const tenant: Tenant = await createTenant(svc.deps, "in-process");
    for (const userId of ["vera", "walt"]) {
      const added = await svc.call(
        "POST",
        "/api/add_user_playbook",
        { user_playbooks: [{ user_id: userId, content: `Offer ${userId} green tea` }] },
        bearer(tenant.fullKey),
      );
      expect(added.status).toBe(200);
    }
    await svc.learningIdle();
    await follower.drain();
    const saved = () => new InProcessVectorIndex({ collections: ["user_playbooks"], directory });
    const usersOnDisk = async () => {
      const hits = await saved().search("user_playbooks", {
        vector: new Array(384).fill(0.05),
        filter: { scope: { orgId: tenant.orgId, projectId: "default" }, must: [] },
        topK: 10,
      });
      return hits.length;
    };
    expect(await usersOnDisk()).toBe(2);

    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "vera", request_id: "v-1" }, bearer(tenant.governanceSession));
    expect(erased.status).toBe(202);
    await svc.learningIdle();
    const status = await svc.call("GET", `/api/governance/purge-operations/${erased.body.purge_id}`, undefined, bearer(tenant.governanceSession));
    expect(status.body.status).toBe("complete");
    expect(await usersOnDisk()).toBe(1);
    const found = await svc.call("POST", "/api/search_user_playbooks", { query: "green tea", threshold: 0, search_mode: "vector" }, bearer(tenant.fullKey));
    expect(found.body.user_playbooks.map((p: any) => p.user_id)).toEqual(["walt"]);
  });
});
