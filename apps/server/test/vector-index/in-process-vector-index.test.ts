import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChangeLogFollower } from "@als/core";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant, type Tenant } from "@als/test-support/tenants.ts";
import { bothPaths as answeredBothWays } from "@als/test-support/vector-index-paths.ts";
import { InProcessVectorIndex } from "@als/vector";

// The in-process vector index as the embedded service keeps it: saved to a directory, loaded at the
// next start and moved on by the change log from where the save left it. It must answer like
// pgvector, see every write that committed before a search, survive a kill between saves, never
// read another database's save, and drop an erased user's points from memory and disk.

let svc: TestService;
let directory: string;
let follower: ChangeLogFollower;
const opened: ChangeLogFollower[] = [];
const errors: unknown[] = [];

const agentIds = (body: any) => body.agent_playbooks.map((p: any) => p.agent_playbook_id);
const userPlaybookIds = (body: any) => body.user_playbooks.map((p: any) => p.user_playbook_id);
const searchAgents = (query: string, extra: object = {}) =>
  svc.call("POST", "/api/search_agent_playbooks", { query, top_k: 5, threshold: 0, search_mode: "vector", ...extra });

/** The same request answered by pgvector and by the in-process index. */
const bothPaths = (path: string, body: object) => answeredBothWays(svc, follower, path, body);

/** A follower as a starting process opens it; searches use pgvector until its first catch-up is done. */
async function openFollower(on: TestService = svc): Promise<ChangeLogFollower> {
  const started = await ChangeLogFollower.open(on.db, { directory, onError: (error) => errors.push(error) });
  if (on === svc) opened.push(started);
  await started.catchUp();
  return started;
}

beforeAll(async () => {
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
  for (const each of opened) await each.close();
  await svc.close();
  rmSync(directory, { recursive: true, force: true });
  expect(errors).toEqual([]);
});

describe("the in-process vector index, saved and followed", () => {
  test("answers project-wide searches with the rows and order of pgvector, filters included", async () => {
    expect(follower.startedFrom).toBe("tables");
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

  test("answers one user's search like the database, and leaves one request's and interactions to it", async () => {
    const scope = { orgId: "o", projectId: "p" };
    expect(follower.serves("user_playbooks", { scope, must: [{ key: "user_id", equals: "ivy" }] })).toBe(true);
    expect(follower.serves("user_playbooks", { scope, must: [{ key: "request_id", equals: "r-1" }] })).toBe(false);
    expect(follower.serves("interactions", { scope, must: [] })).toBe(false);
    for (const search_mode of ["vector", "hybrid"]) {
      const { inSql, viaIndex } = await bothPaths("/api/search_user_playbooks", { query: "refund", user_id: "ivy", threshold: 0, search_mode });
      expect(userPlaybookIds(viaIndex)).toEqual(userPlaybookIds(inSql));
      expect(userPlaybookIds(inSql).length).toBe(1);
    }
  });

  test("a search sees every write that committed before it, with no background pass in between", async () => {
    const [added] = await addAgentPlaybooks(svc, [{ trigger: "a parcel is lost in transit", content: "Open a carrier claim", playbook_status: "APPROVED" }]);
    expect(agentIds((await searchAgents("my package never arrived")).body)[0]).toBe(added);
    const deleted = await svc.call("DELETE", "/api/delete_agent_playbook", { agent_playbook_id: added });
    expect(deleted.status).toBe(200);
    expect(agentIds((await searchAgents("my package never arrived")).body)).not.toContain(added);
  });

  test("a process killed after its last save starts from the save and takes in what the log holds since", async () => {
    await follower.drain();
    const [late] = await addAgentPlaybooks(svc, [
      { trigger: "the user asks for an invoice copy", content: "Send the PDF invoice", playbook_status: "APPROVED" },
    ]);
    await follower.catchUp();
    const before = agentIds((await searchAgents("send me a copy of my invoice")).body);
    expect(before[0]).toBe(late);
    // The old follower is left as a killed process would leave it: its last save lacks `late`.
    follower = await openFollower();
    svc.deps.vectorIndex = follower;
    expect(follower.startedFrom).toBe("save");
    expect(agentIds((await searchAgents("send me a copy of my invoice")).body)).toEqual(before);
    expect(agentIds((await searchAgents("reimbursement", { search_mode: "hybrid" })).body).length).toBeGreaterThan(0);
  });

  test("a graph thread that dies leaves searches to the database until the next catch-up builds the graphs again", async () => {
    const anyProject = { scope: { orgId: "o", projectId: "p" }, must: [] };
    const before = agentIds((await searchAgents("reimbursement")).body);
    expect(before.length).toBeGreaterThan(0);
    // Ended as an out-of-memory inside the thread would end it.
    const { index } = follower as unknown as { index: { thread: { worker: { terminate(): Promise<number> } } } };
    await index.thread.worker.terminate();
    for (let waited = 0; follower.serves("agent_playbooks", anyProject) && waited < 2000; waited += 10) await Bun.sleep(10);
    expect(follower.serves("agent_playbooks", anyProject)).toBe(false);
    // What als_vector_index_serving shows operators.
    expect(follower.status().serving).toBe(false);
    expect(agentIds((await searchAgents("reimbursement")).body)).toEqual(before);
    await follower.catchUp();
    expect(follower.serves("agent_playbooks", anyProject)).toBe(true);
    expect(follower.status().serving).toBe(true);
    expect(agentIds((await searchAgents("reimbursement")).body)).toEqual(before);
    expect(errors.splice(0).map((error) => String(error))).toEqual([expect.stringContaining("graph thread failed; rebuilding it")]);
  });

  test("a save of another database is not read: the index is built from its own tables", async () => {
    const other = await startTestService();
    let foreign: ChangeLogFollower | undefined;
    try {
      const [own] = await addAgentPlaybooks(other, [{ trigger: "a customer asks to get their money back", content: "Say no", playbook_status: "APPROVED" }]);
      foreign = await openFollower(other);
      expect(foreign.startedFrom).toBe("tables");
      other.deps.vectorIndex = foreign;
      const found = await other.call("POST", "/api/search_agent_playbooks", { query: "reimbursement", threshold: 0, search_mode: "vector" });
      expect(agentIds(found.body)).toEqual([own]);
    } finally {
      await foreign?.close();
      await other.close();
    }
  });

  test("an erased user's points leave the index and its save on disk", async () => {
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
    const pointsOnDisk = async () => {
      const saved = new InProcessVectorIndex({ collections: ["user_playbooks"], directory });
      const hits = await saved.search("user_playbooks", {
        vector: new Array(384).fill(0.05),
        filter: { scope: { orgId: tenant.orgId, projectId: "default" }, must: [] },
        topK: 10,
      });
      saved.close();
      return hits.length;
    };
    expect(await pointsOnDisk()).toBe(2);

    const erased = await svc.call("POST", "/api/governance/erase-user", { user_id: "vera", request_id: "v-1" }, bearer(tenant.governanceSession));
    expect(erased.status).toBe(202);
    await svc.learningIdle();
    const status = await svc.call("GET", `/api/governance/purge-operations/${erased.body.purge_id}`, undefined, bearer(tenant.governanceSession));
    expect(status.body.status).toBe("complete");
    expect(await pointsOnDisk()).toBe(1);
    const found = await svc.call("POST", "/api/search_user_playbooks", { query: "green tea", threshold: 0, search_mode: "vector" }, bearer(tenant.fullKey));
    expect(found.body.user_playbooks.map((p: any) => p.user_id)).toEqual(["walt"]);
  });
});
