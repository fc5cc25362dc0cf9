import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Reconciler, reembedStaleRowsStep } from "@als/core";
import { LOCAL_SCOPE, staleEmbeddings, vectorOutbox } from "@als/db";
import { seedPlaybooksOfRetiredModel } from "@als/test-support/retired-model-rows.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

const stale = () => staleEmbeddings.countRowsWithStaleEmbedding(svc.db, LOCAL_SCOPE, svc.deps.embedder.modelId);
const searchUserPlaybooks = (query: string) => svc.call("POST", "/api/search_user_playbooks", { user_id: "user-1", query, search_mode: "vector", top_k: 3 });
const searchAgentPlaybooks = (query: string) => svc.call("POST", "/api/search_agent_playbooks", { query, search_mode: "vector", top_k: 3 });

describe("re-embedding user and agent playbooks after the embedding model changes", () => {
  test("vectors of a retired model are not compared with the current model's query vectors", async () => {
    await seedPlaybooksOfRetiredModel(svc.db, LOCAL_SCOPE, 6);
    expect((await searchUserPlaybooks("asks for money back")).body.user_playbooks).toEqual([]);
    expect((await searchAgentPlaybooks("asks for money back")).body.agent_playbooks).toEqual([]);
    expect(await staleEmbeddings.findScopesWithStaleEmbeddings(svc.db, svc.deps.embedder.modelId)).toEqual([LOCAL_SCOPE]);
  });

  test("each step is idempotent, takes user playbooks then agent playbooks, and the rows are the cursor", async () => {
    expect(await reembedStaleRowsStep(svc.deps, LOCAL_SCOPE, 4)).toEqual({ reembedded: 4, remaining: 8 });
    expect(await reembedStaleRowsStep(svc.deps, LOCAL_SCOPE, 4)).toEqual({ reembedded: 2, remaining: 6 });
    const [agentFirst] = await staleEmbeddings.findRowsWithStaleEmbedding(svc.db, LOCAL_SCOPE, "agent_playbooks", svc.deps.embedder.modelId, 1);
    expect(agentFirst).toBeDefined();
    expect(await staleEmbeddings.findRowsWithStaleEmbedding(svc.db, LOCAL_SCOPE, "user_playbooks", svc.deps.embedder.modelId, 1)).toEqual([]);
    expect(await reembedStaleRowsStep(svc.deps, LOCAL_SCOPE, 4)).toEqual({ reembedded: 4, remaining: 2 });
  });

  test("re-embedded rows are noted for the vector index", async () => {
    // The outbox triggers note changes once an external vector index has turned them on.
    await vectorOutbox.enableSync(svc.db);
    await svc.db.query("DELETE FROM vector_outbox");
    await reembedStaleRowsStep(svc.deps, LOCAL_SCOPE, 4);
    const noted = await svc.db.query<{ collection: string; n: number }>(
      "SELECT collection, count(*)::int AS n FROM vector_outbox GROUP BY collection ORDER BY collection",
    );
    expect(noted).toEqual([{ collection: "agent_playbooks", n: 2 }]);
  });

  test("the in-process reconciler finishes the project and semantic search works again", async () => {
    await seedPlaybooksOfRetiredModel(svc.db, LOCAL_SCOPE, 300);
    const reconciler = new Reconciler(svc.deps, (error) => {
      throw error;
    });
    reconciler.poke();
    await reconciler.idle();
    // Its wake-up timer would otherwise poke on after this file closed the database, failing a later file's test.
    reconciler.stop();
    expect(await stale()).toBe(0);
    const users = (await searchUserPlaybooks("customer wants their money back")).body.user_playbooks;
    expect(users.map((p: any) => p.trigger)).toEqual(Array(3).fill("the user asks for a refund"));
    const agents = (await searchAgentPlaybooks("customer wants their money back")).body.agent_playbooks;
    expect(agents.map((p: any) => p.trigger)).toEqual(Array(3).fill("the user asks for a refund"));
  });

  test("a concurrent edit of the trigger is never overwritten with the vector of its old text", async () => {
    await seedPlaybooksOfRetiredModel(svc.db, LOCAL_SCOPE, 1);
    const modelId = svc.deps.embedder.modelId;
    for (const kind of ["user_playbooks", "agent_playbooks"] as const) {
      const [row] = await staleEmbeddings.findRowsWithStaleEmbedding(svc.db, LOCAL_SCOPE, kind, modelId, 1);
      const idColumn = kind === "user_playbooks" ? "user_playbook_id" : "agent_playbook_id";
      await svc.db.query(`UPDATE ${kind} SET trigger = 'edited meanwhile' WHERE ${idColumn} = $1`, [Number(row!.row_id)]);
      expect(await staleEmbeddings.storeEmbeddings(svc.db, LOCAL_SCOPE, kind, modelId, [{ ...row!, embedding: Array(384).fill(0.05) }])).toBe(0);
    }
  });
});
