import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { embedPendingInteractions, prepareVectorIndex, Reconciler, rebuildVectorIndex, syncVectorIndexStep } from "@als/core";
import { LOCAL_SCOPE, vectorOutbox } from "@als/db";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { PushedPoints } from "@als/test-support/pushed-points.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { type Collection, PgVectorIndex } from "@als/vector";

let svc: TestService;
const pushed = new PushedPoints();
const BATCH = 100;
const sync = () => syncVectorIndexStep({ db: svc.db, vectorIndex: pushed }, BATCH);
const record = (collection: Collection, id: string | number) =>
  new PgVectorIndex(svc.db).readPoints(collection, [{ scope: LOCAL_SCOPE, id: String(id) }]).then(([point]) => point);
const addProfile = (profile: object) => svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "fay", ...profile }] });

beforeAll(async () => {
  svc = await startTestService();
});
afterAll(() => svc.close());

describe("keeping a vector index in sync through the outbox", () => {
  test("without a vector index the triggers note nothing", async () => {
    await addProfile({ profile_id: "early", content: "Written before any vector index was configured" });
    expect(await vectorOutbox.countPending(svc.db)).toBe(0);
  });

  test("preparing a new index notes every row; a drain pushes the rows' points and empties the outbox", async () => {
    await prepareVectorIndex({ db: svc.db, vectorIndex: pushed });
    expect(await vectorOutbox.countPending(svc.db)).toBe(1);
    expect(await sync()).toEqual({ pushed: 1, busy: false });
    expect(pushed.get("profiles", "early")).toEqual((await record("profiles", "early"))!);
    expect(pushed.get("profiles", "early")!.vector).toHaveLength(384);
    expect(await vectorOutbox.countPending(svc.db)).toBe(0);
    expect(await sync()).toEqual({ pushed: 0, busy: false });
  });

  test("inserts, updates of filtered columns, links and deletes reach the index", async () => {
    await addProfile({ profile_id: "pet", content: "Owns a golden retriever", tags: ["pets"] });
    const [chat] = await addUserPlaybooks(svc, [{ user_id: "ivy", content: "Offer a refund", source: "chat", tags: ["billing"] }]);
    const [agent] = await addAgentPlaybooks(svc, [
      { trigger: "money back", content: "Issue a refund", source_user_playbook_ids: [chat], playbook_status: "PENDING" },
    ]);
    await sync();
    expect(pushed.get("profiles", "pet")!.payload.tags).toEqual(["pets"]);
    expect(pushed.get("user_playbooks", chat!)!.payload.source).toBe("chat");
    expect(pushed.get("agent_playbooks", agent!)!.payload.linked_sources).toEqual(["chat"]);

    const approved = await svc.call("PUT", "/api/update_agent_playbook_status", { agent_playbook_id: agent, playbook_status: "APPROVED" });
    expect(approved.status).toBe(200);
    expect((await svc.call("DELETE", "/api/delete_profile", { user_id: "fay", profile_id: "pet" })).status).toBe(200);
    expect((await svc.call("DELETE", "/api/delete_user_playbook", { user_playbook_id: chat })).status).toBe(200);
    await sync();
    expect(pushed.get("agent_playbooks", agent!)!.payload.playbook_status).toBe("APPROVED");
    // The link went with the user playbook: the agent playbook no longer matches its source.
    expect(pushed.get("agent_playbooks", agent!)!.payload.linked_sources).toEqual([]);
    expect(pushed.get("profiles", "pet")).toBeUndefined();
    expect(pushed.get("user_playbooks", chat!)).toBeUndefined();
    expect(pushed.get("agent_playbooks", agent!)).toEqual((await record("agent_playbooks", agent!))!);
  });

  test("a published interaction is noted once it has a vector, not when it is stored without one", async () => {
    const published = await svc.call("POST", "/api/publish_interaction", {
      user_id: "gus",
      session_id: "gus-1",
      interaction_data_list: [{ role: "User", content: "My parcel arrived damaged" }],
    });
    expect(published.status).toBe(200);
    expect(await vectorOutbox.countPending(svc.db)).toBe(0);
    expect(await embedPendingInteractions(svc.deps, LOCAL_SCOPE, "gus")).toBe(1);
    expect(await vectorOutbox.countPending(svc.db)).toBe(1);
    await sync();
    const [row] = await svc.db.query<{ interaction_id: number }>("SELECT interaction_id FROM interactions WHERE user_id = 'gus'");
    expect(pushed.get("interactions", row!.interaction_id)).toEqual((await record("interactions", row!.interaction_id))!);
    expect(pushed.get("interactions", row!.interaction_id)!.vector).toHaveLength(384);
  });

  test("an entry changed again after it was read stays for the next drain", async () => {
    await addProfile({ profile_id: "job", content: "Works as a backend engineer", tags: ["work"] });
    const read = await vectorOutbox.oldestEntries(svc.db, BATCH);
    await addProfile({ profile_id: "job", content: "Works as a backend engineer", tags: ["work", "go"] });
    await vectorOutbox.removePushed(svc.db, read);
    // Only this row's entry is asked about: the reconciler may still be learning from an earlier
    // test's publish, and what it writes is noted too.
    const pending = await vectorOutbox.oldestEntries(svc.db, BATCH);
    expect(pending.filter((entry) => entry.row_id === "job")).toHaveLength(1);
    await sync();
    expect(pushed.get("profiles", "job")!.payload.tags).toEqual(["work", "go"]);
  });

  test("the embedded reconciler drains the outbox on its own when a vector index is configured", async () => {
    const errors: unknown[] = [];
    const reconciler = new Reconciler({ ...svc.deps, vectorIndex: pushed }, (error) => errors.push(error));
    try {
      await addProfile({ profile_id: "sport", content: "Runs marathons on weekends" });
      const deadline = Date.now() + 10_000;
      while (!pushed.get("profiles", "sport") && Date.now() < deadline) await Bun.sleep(100);
      expect(pushed.get("profiles", "sport")).toEqual((await record("profiles", "sport"))!);
    } finally {
      reconciler.stop();
      await reconciler.idle();
    }
    expect(errors).toEqual([]);
  });

  test("a rebuild re-pushes every row from the record", async () => {
    const before = new Map(pushed.points);
    pushed.points.clear();
    await rebuildVectorIndex({ db: svc.db, vectorIndex: pushed }, 2);
    expect(pushed.points).toEqual(before);
    expect(await vectorOutbox.countPending(svc.db)).toBe(0);
  });
});
