import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ChangeLogFollower, loadSettings } from "@als/core";
import { LOCAL_SCOPE, vectorChangeLog } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { parseMetricsText, sampleValue } from "@als/test-support/metrics-text.ts";
import { addAgentPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { type IndexedRow, type InProcessVectorIndex, PgVectorIndex, type PointRef, type TextIndex } from "@als/vector";
import { createApiMetrics } from "../../src/metrics/api-metrics.ts";

// Full mode's in-process vector index: every API process keeps a graph of its own, rebuilt from the
// tables at start and moved on by the change log of migration 0036. Two followers on one database
// stand for two API processes here.

let svc: TestService;
let first: ChangeLogFollower;
let second: ChangeLogFollower;
const errors: unknown[] = [];

const agentIds = (body: any): number[] => body.agent_playbooks.map((p: any) => p.agent_playbook_id);
const searchWith = async (follower: ChangeLogFollower | undefined, query: string, extra: object = {}) => {
  svc.deps.vectorIndex = follower;
  const response = await svc.call("POST", "/api/search_agent_playbooks", { query, top_k: 5, threshold: 0, search_mode: "vector", ...extra });
  expect(response.status).toBe(200);
  return agentIds(response.body);
};
const ready = async (follower: ChangeLogFollower) => {
  await follower.catchUp();
  expect(follower.serves("agent_playbooks", { scope: { orgId: "o", projectId: "p" }, must: [] })).toBe(true);
  return follower;
};
const insertAgentPlaybook = (sql: { query: TestService["db"]["query"] }, content: string) =>
  sql.query<{ id: number }>(
    `INSERT INTO agent_playbooks (org_id, project_id, agent_version, content, trigger, playbook_status, status, embedding, embedding_model, created_at, last_modified_timestamp)
     SELECT org_id, project_id, agent_version, $1, trigger, playbook_status, status, embedding, embedding_model, created_at, last_modified_timestamp
     FROM agent_playbooks ORDER BY agent_playbook_id LIMIT 1 RETURNING agent_playbook_id AS id`,
    [content],
  );

beforeAll(async () => {
  svc = await startTestService();
  await addAgentPlaybooks(svc, [
    { trigger: "a customer asks to get their money back", content: "Check the purchase date, then issue a refund", playbook_status: "APPROVED" },
    { trigger: "the user writes in Spanish", content: "Reply in Spanish", playbook_status: "APPROVED" },
    { trigger: "the service is down", content: "Share the status page link", playbook_status: "PENDING" },
  ]);
  first = await ready(await ChangeLogFollower.open(svc.db, { onError: (error) => errors.push(error) }));
  second = await ready(await ChangeLogFollower.open(svc.db, { onError: (error) => errors.push(error) }));
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await svc.close();
  expect(errors).toEqual([]);
});

describe("the change-log vector index (full mode's API processes)", () => {
  test("holds every kind, and serves one user's searches, as embedded does; one request's stay in the database", async () => {
    const scope = { orgId: "o", projectId: "p" };
    for (const kind of ["profiles", "user_playbooks", "agent_playbooks"] as const) {
      expect(first.serves(kind, { scope, must: [] })).toBe(true);
      expect(first.text.serves(kind, { scope, must: [{ key: "user_id", equals: "ivy" }] })).toBe(true);
    }
    expect(first.serves("user_playbooks", { scope, must: [{ key: "request_id", equals: "r-1" }] })).toBe(false);
  });

  test("holds each row's payload once, for the graph's filter and the text arm's; a changed row's with it", async () => {
    const held = first as unknown as { index: InProcessVectorIndex; textIndex: TextIndex };
    const [row] = await svc.db.query<{ id: string; org_id: string; project_id: string }>(
      "SELECT agent_playbook_id::text AS id, org_id, project_id FROM agent_playbooks ORDER BY agent_playbook_id LIMIT 1",
    );
    const ref = { scope: { orgId: row!.org_id, projectId: row!.project_id }, id: row!.id };
    await first.catchUp();
    const payload = held.index.payloadOf("agent_playbooks", ref);
    expect(payload?.playbook_status).toBe("APPROVED");
    expect(held.textIndex.payloadOf("agent_playbooks", ref)).toBe(payload!);
    // Changed through the log: both arms take the new payload, again one object.
    await svc.db.query("UPDATE agent_playbooks SET tags = ARRAY['moved', 'twice'] WHERE agent_playbook_id = $1", [row!.id]);
    await first.catchUp();
    const changed = held.index.payloadOf("agent_playbooks", ref);
    expect(changed?.tags).toEqual(["moved", "twice"]);
    expect(held.textIndex.payloadOf("agent_playbooks", ref)).toBe(changed!);
  });

  test("answers like pgvector, filters included", async () => {
    for (const request of [{ query: "reimbursement" }, { query: "outage", playbook_status_filter: ["PENDING"] }, { query: "language" }]) {
      const inSql = await searchWith(undefined, request.query, request);
      expect(inSql.length).toBeGreaterThan(0);
      expect(await searchWith(first, request.query, request)).toEqual(inSql);
    }
  });

  test("/metrics shows the points it holds per collection, that it serves, and how long ago it read the log", async () => {
    await first.catchUp();
    const samples = parseMetricsText(await createApiMetrics({ ...svc.deps, vectorIndex: first }).registry.metrics());
    const agentPlaybooks = (await svc.db.query<{ n: number }>("SELECT count(*)::int AS n FROM agent_playbooks"))[0]!.n;
    expect(sampleValue(samples, "als_vector_index_points", { collection: "agent_playbooks" })).toBe(agentPlaybooks);
    expect(sampleValue(samples, "als_vector_index_serving")).toBe(1);
    expect(sampleValue(samples, "als_vector_index_follow_age_seconds")).toBeLessThan(5);
    // Without an index of its own (pgvector in the database) there is no vector index to report.
    const none = parseMetricsText(await createApiMetrics({ ...svc.deps, vectorIndex: undefined }).registry.metrics());
    expect(none.filter((sample) => sample.name.startsWith("als_vector_"))).toEqual([]);
  });

  test("a write through one process is seen by the next search of every process", async () => {
    const [added] = await addAgentPlaybooks(svc, [{ trigger: "a parcel is lost in transit", content: "Open a carrier claim", playbook_status: "APPROVED" }]);
    expect((await searchWith(first, "my package never arrived"))[0]).toBe(added!);
    expect((await searchWith(second, "my package never arrived"))[0]).toBe(added!);
    expect((await svc.call("DELETE", "/api/delete_agent_playbook", { agent_playbook_id: added })).status).toBe(200);
    expect(await searchWith(second, "my package never arrived")).not.toContain(added!);
  });

  test.skipIf(testMode !== "full")("a transaction that commits after a later one was read is still taken in", async () => {
    let early = 0;
    let late = 0;
    await svc.db.transaction(async (tx) => {
      [{ id: early }] = (await insertAgentPlaybook(tx, "Escalate a billing dispute to finance")) as [{ id: number }];
      // Another transaction, begun after this one, commits first; a follower reads the log meanwhile.
      [{ id: late }] = (await insertAgentPlaybook(svc.db, "Escalate a shipping dispute to logistics")) as [{ id: number }];
      await first.catchUp();
    });
    await first.catchUp();
    const rows = await svc.db.query<{ id: number }>("SELECT agent_playbook_id AS id FROM agent_playbooks WHERE agent_playbook_id = ANY($1::int8[])", [
      [early, late],
    ]);
    expect(rows.length).toBe(2);
    const found = await searchWith(first, "the user complains about the charge", { top_k: 20 });
    expect(found).toContain(early);
    expect(found).toContain(late);
  });

  test("a unified search reads the log while its query embeds, and finds what was committed just before it", async () => {
    svc.deps.vectorIndex = first;
    const [added] = await addAgentPlaybooks(svc, [{ trigger: "a gift card code is rejected", content: "Reissue the gift card", playbook_status: "APPROVED" }]);
    const response = await svc.app.handle(
      new Request("http://localhost/api/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "my voucher does not work", top_k: 5, threshold: 0, search_mode: "vector", entity_types: ["agent_playbooks"] }),
      }),
    );
    expect(response.status).toBe(200);
    const found = agentIds(await response.json());
    expect(found).toContain(added!);
    expect(found).toEqual(await searchWith(undefined, "my voucher does not work", { top_k: 5, threshold: 0 }));
    const stages = response.headers.get("server-timing")!;
    // One read of the log for the request, begun beside the embedding; the kind's search went through the graph.
    expect(stages).toContain("vector.catch_up;");
    expect(stages).toContain("agent_playbooks.vector;");
    // The follower holds the agent playbooks' text arm in both modes: a full-text search of them runs there.
    svc.deps.vectorIndex = first;
    const fts = await svc.app.handle(
      new Request("http://localhost/api/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: "gift card", search_mode: "fts", entity_types: ["agent_playbooks"] }),
      }),
    );
    expect(fts.headers.get("server-timing")!).toContain("agent_playbooks.text;");
  });

  test.skipIf(testMode !== "embedded")("embedded: a search reads the log only when a commit was announced since the last read", async () => {
    let reads = 0;
    const counted = {
      ...svc.db,
      query: ((text: string, params?: readonly unknown[]) => {
        if (text.includes("FROM vector_changes WHERE")) reads++;
        return svc.db.query(text, params);
      }) as TestService["db"]["query"],
    };
    const follower = await ready(await ChangeLogFollower.open(counted, { onError: (error) => errors.push(error) }));
    try {
      const before = reads;
      for (let i = 0; i < 50; i++) expect((await searchWith(follower, "reimbursement")).length).toBeGreaterThan(0);
      // Its own loop reads the log once a second all the same; each search read it before.
      expect(reads - before).toBeLessThanOrEqual(2);
      // Rolled back: nothing announced, nothing to read.
      await svc.db
        .transaction(async (tx) => {
          await insertAgentPlaybook(tx, "Never committed");
          throw new Error("rolled back");
        })
        .catch(() => {});
      for (let round = 0; round < 5; round++) {
        // Committed in a transaction, through a statement alone, and through the API: each seen by the very next search.
        let inTransaction = 0;
        await svc.db.transaction(async (tx) => {
          [{ id: inTransaction }] = (await insertAgentPlaybook(tx, `Refund policy exception ${round}`)) as [{ id: number }];
        });
        expect(await searchWith(follower, "reimbursement", { top_k: 50 })).toContain(inTransaction);
        const [{ id: alone }] = (await insertAgentPlaybook(svc.db, `Refund by voucher ${round}`)) as [{ id: number }];
        expect(await searchWith(follower, "reimbursement", { top_k: 50 })).toContain(alone);
        await svc.db.query("DELETE FROM agent_playbooks WHERE agent_playbook_id = ANY($1::int8[])", [[inTransaction, alone]]);
        const found = await searchWith(follower, "reimbursement", { top_k: 50 });
        expect(found).not.toContain(inTransaction);
        expect(found).not.toContain(alone);
      }
    } finally {
      await follower.close();
    }
  });

  test("a follower whose place in the log was pruned rebuilds from the tables", async () => {
    const [missed] = await addAgentPlaybooks(svc, [
      { trigger: "a user asks to export their data", content: "Send the export link", playbook_status: "APPROVED" },
    ]);
    // Its entry pruned before the second follower read it, and the pruning recorded past it.
    await svc.db.query("DELETE FROM vector_changes");
    await svc.db.query("UPDATE vector_sync SET change_log_pruned_through = pg_snapshot_xmin(pg_current_snapshot())");
    await second.catchUp();
    await second.catchUp();
    expect((await searchWith(second, "I want to export my data"))[0]).toBe(missed!);
  });

  test("a new process builds its graph from the tables and answers alike", async () => {
    const third = await ready(await ChangeLogFollower.open(svc.db, { onError: (error) => errors.push(error) }));
    try {
      for (const query of ["reimbursement", "I want to export my data", "language"]) {
        expect(await searchWith(third, query)).toEqual(await searchWith(undefined, query));
      }
    } finally {
      await third.close();
    }
  });

  test("old entries are pruned by the followers", async () => {
    await addAgentPlaybooks(svc, [{ trigger: "prune me", content: "An entry to prune", playbook_status: "APPROVED" }]);
    expect((await svc.db.query("SELECT 1 FROM vector_changes")).length).toBeGreaterThan(0);
    // A prune keeps the entries at or after the server's snapshot horizon (pg_snapshot_xmin), which
    // any other session's transaction on the server holds back, so it may take a few rounds.
    const pruneAndCount = async () => {
      await vectorChangeLog.pruneChanges(svc.db, 0);
      return (await svc.db.query("SELECT 1 FROM vector_changes")).length;
    };
    const deadline = Date.now() + 10_000;
    let left = await pruneAndCount();
    while (left > 0 && Date.now() < deadline) {
      await Bun.sleep(50);
      left = await pruneAndCount();
    }
    expect(left).toBe(0);
    await first.catchUp();
    expect((await searchWith(first, "prune me")).length).toBeGreaterThan(0);
  });
});

describe("reading every row page by page (a rebuild)", () => {
  test("pages in key order cover every row once, with the points of those with a vector and one payload for both parts, for numeric and text ids", async () => {
    await svc.call("POST", "/api/add_user_profile", {
      user_profiles: ["a", "b", "c"].map((n) => ({ user_id: "paged", profile_id: `paged-${n}`, content: `Likes colour ${n}` })),
    });
    await svc.db.query("UPDATE profiles SET embedding = NULL WHERE profile_id = 'paged-b'");
    const record = new PgVectorIndex(svc.db);
    for (const collection of ["agent_playbooks", "profiles"] as const) {
      const paged: IndexedRow[] = [];
      for (let after: PointRef | null = null; ; ) {
        const page: IndexedRow[] = await record.readRowsAfter(collection, after, 2);
        paged.push(...page);
        if (page.length < 2) break;
        after = page[page.length - 1]!.document;
      }
      const [table, idColumn, order] =
        collection === "profiles"
          ? ["profiles", "profile_id", "org_id, project_id, profile_id"]
          : ["agent_playbooks", "agent_playbook_id", "agent_playbook_id"];
      const all = await svc.db.query<{ id: string; vectored: boolean }>(
        `SELECT ${idColumn}::text AS id, embedding IS NOT NULL AS vectored FROM ${table} ORDER BY ${order}`,
      );
      expect(all.length).toBeGreaterThan(2);
      expect(paged.map((row) => row.document.id)).toEqual(all.map((row) => row.id));
      expect(paged.flatMap((row) => (row.point ? [row.point.id] : []))).toEqual(all.filter((row) => row.vectored).map((row) => row.id));
      for (const row of paged) if (row.point) expect(row.point.payload).toBe(row.document.payload);
    }
    const [unvectored] = await record.readRows("profiles", [{ scope: LOCAL_SCOPE, id: "paged-b" }]);
    expect(unvectored?.document.id).toBe("paged-b");
    expect(unvectored?.point).toBeNull();
  });
});

describe("choosing the vector index (VECTOR_INDEX)", () => {
  test("in-process embedded, saved under DATA_DIR; pgvector in full mode unless asked; Qdrant over both", () => {
    expect(loadSettings({ DATA_DIR: "/srv/als" }).vectorIndex).toEqual({ kind: "in-process", directory: "/srv/als/vector-index" });
    expect(loadSettings({ VECTOR_INDEX: "pgvector" }).vectorIndex).toBeUndefined();
    expect(loadSettings({ DATABASE_URL: "postgres://db/als" }).vectorIndex).toBeUndefined();
    expect(loadSettings({ DATABASE_URL: "postgres://db/als", VECTOR_INDEX: "in-process" }).vectorIndex).toEqual({ kind: "in-process" });
    expect(loadSettings({ QDRANT_URL: "http://qdrant:6333" }).vectorIndex).toEqual({ kind: "qdrant", url: "http://qdrant:6333" });
    expect(() => loadSettings({ VECTOR_INDEX: "faiss" })).toThrow(/VECTOR_INDEX/);
    expect(loadSettings({ QDRANT_URL: "http://qdrant:6333", QDRANT_COLLECTION_PREFIX: "staging_" }).vectorIndex).toEqual({
      kind: "qdrant",
      url: "http://qdrant:6333",
      collectionPrefix: "staging_",
    });
    expect(() => loadSettings({ QDRANT_URL: "http://qdrant:6333", QDRANT_COLLECTION_PREFIX: "a/b" })).toThrow(/QDRANT_COLLECTION_PREFIX/);
  });
});
