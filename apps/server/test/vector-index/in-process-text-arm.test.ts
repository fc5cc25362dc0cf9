import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChangeLogFollower } from "@als/core";
import { agentPlaybooks, FUSION } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bearer, createTenant } from "@als/test-support/tenants.ts";
import { PgVectorIndex, type PointRef, packTsvector, type TextDocument, TextIndex } from "@als/vector";

// The full-text arm inside the process (the in-process vector index, in both modes): the rows' stored tsvectors, followed through the
// change log with the vector graph, scored as PostgreSQL's text arm scores them.

let svc: TestService;
const errors: unknown[] = [];
/** The project the test service's calls land in. */
let scope = { orgId: "", projectId: "" };
const embedded = testMode === "embedded";
const directory = mkdtempSync(join(tmpdir(), "text-arm-"));

const FIXTURE = [
  { trigger: "a customer asks for a refund of a refund", content: "Issue the refund after checking the order", rationale: "Refunds keep trust" },
  { trigger: "the order arrived broken", content: "Send a replacement order and apologise for the broken order", rationale: "Replacement is cheaper" },
  { trigger: "shipping is late", content: "Share the tracking link", rationale: "Customers want to see where the order is" },
  { trigger: "billing question", content: "Explain the invoice line by line", rationale: "A refund is rarely needed" },
  { trigger: "the user is angry", content: "Apologise once, then fix it", rationale: "Long apologies annoy" },
];
const QUERIES = ["refund my order", "broken order replacement", "where is my parcel tracking", "apologise", "the and of", "refund refund refund order invoice"];

const agentIds = (body: any): number[] => body.agent_playbooks.map((p: any) => p.agent_playbook_id);
const search = async (query: string, mode: "fts" | "hybrid", extra: object = {}) => {
  const response = await svc.call("POST", "/api/search_agent_playbooks", { query, top_k: 10, threshold: 0, search_mode: mode, ...extra });
  expect(response.status).toBe(200);
  return agentIds(response.body);
};
const userSearch = async (query: string, userId: string, headers: Record<string, string>) => {
  const response = await svc.call("POST", "/api/search_user_playbooks", { query, user_id: userId, top_k: 10, search_mode: "fts" }, headers);
  expect(response.status).toBe(200);
  return response.body.user_playbooks.map((p: any) => p.user_playbook_id) as number[];
};
const queryWords = async (text: string) =>
  (await svc.db.query<{ words: string[] }>(`SELECT tsvector_to_array(to_tsvector('english', $1)) AS words`, [text]))[0]!.words;
const allDocuments = async (): Promise<TextDocument[]> => {
  const record = new PgVectorIndex(svc.db);
  const documents: TextDocument[] = [];
  for (let after: PointRef | null = null; ; ) {
    const page = await record.readDocumentsAfter("agent_playbooks", after, 2);
    documents.push(...page);
    if (page.length < 2) break;
    after = page[page.length - 1]!;
  }
  return documents;
};

beforeAll(async () => {
  svc = await startTestService();
  const ids = await addAgentPlaybooks(
    svc,
    FIXTURE.map((playbook) => ({ ...playbook, playbook_status: "APPROVED" })),
  );
  // Expansion terms of the text they were written for: weight D.
  await svc.db.query(
    `UPDATE agent_playbooks SET expansion_terms = 'reimbursement refund money back', expansion_of = expansion_digest(trigger, content) WHERE agent_playbook_id = $1`,
    [ids[3]],
  );
  const [row] = await svc.db.query<{ org_id: string; project_id: string }>("SELECT org_id, project_id FROM agent_playbooks LIMIT 1");
  scope = { orgId: row!.org_id, projectId: row!.project_id };
});
afterAll(async () => {
  await svc.close();
  rmSync(directory, { recursive: true, force: true });
  expect(errors).toEqual([]);
});

describe("a row's search_text as the text index reads it", () => {
  test("is the database's, lexeme by lexeme, quotes and backslashes included", async () => {
    const vectors = [`'it''s':1A,7 'a\\\\b':3C 'plain':2B,4,5D 'nopos'`, "", `'x':16383A`];
    for (const vector of vectors) {
      const [row] = await svc.db.query<{ text: string; parts: string }>(
        `SELECT $1::tsvector::text AS text,
           (SELECT coalesce(json_agg(json_build_array(lexeme, coalesce(positions, '{}'), coalesce(weights, '{}'))), '[]')::text FROM unnest($1::tsvector)) AS parts`,
        [vector],
      );
      const names: string[] = [];
      const packed = packTsvector(row!.text, (lexeme) => names.push(lexeme) - 1);
      const read: [string, number[], string[]][] = [];
      for (let at = 0; at < packed.length; at += 2 + 2 * packed[at + 1]!) {
        const pairs = Array.from({ length: packed[at + 1]! }, (_, i) => [packed[at + 2 + 2 * i]!, packed[at + 3 + 2 * i]!] as const);
        read.push([names[packed[at]!]!, pairs.map(([position]) => position), pairs.map(([, weight]) => "DCBA"[weight]!)]);
      }
      expect(read).toEqual(JSON.parse(row!.parts));
    }
  });
});

describe("the in-process text arm's scores", () => {
  test("are PostgreSQL's text arm's, exactly, for every matching row, with and without common words", async () => {
    const index = new TextIndex(["agent_playbooks"], FUSION.partialMatch);
    const documents = await allDocuments();
    expect(documents.length).toBe(FIXTURE.length);
    // Every weight is among the rows' positions (D, unwritten, follows a digit directly).
    const positions = documents.flatMap((document) => document.searchText.match(/\d+[A-D]?/g) ?? []);
    expect(new Set(positions.map((position) => position.replace(/\d+/, "") || "D"))).toEqual(new Set(["A", "B", "C", "D"]));
    index.upsert("agent_playbooks", documents);
    let compared = 0;
    for (const common of [[], ["order"], ["refund", "order"]]) {
      for (const query of QUERIES) {
        const inSql = await agentPlaybooks.searchAgentPlaybooks(
          svc.db,
          scope,
          {},
          {
            mode: "fts",
            queryText: query,
            embeddingModel: svc.deps.embedder.modelId,
            commonLexemes: common,
            similarityFloor: svc.deps.embedder.defaultThreshold,
            topK: 100,
          },
        );
        const inMemory = index.search("agent_playbooks", { filter: { scope, must: [] }, words: await queryWords(query), common }).hits;
        const bySql = Object.fromEntries(inSql.map((row) => [String(row.agent_playbook_id), row.text_score as number]));
        expect(Object.fromEntries(inMemory.map((hit) => [hit.id, hit.textScore]))).toEqual(bySql);
        compared += inSql.length;
      }
    }
    // Whole and partial matches, common words left out and kept (a query of only common words).
    expect(compared).toBeGreaterThan(30);
  });
});

describe("the in-process text arm follows the record", () => {
  let follower: ChangeLogFollower;
  beforeAll(async () => {
    follower = await ChangeLogFollower.open(svc.db, { directory, onError: (error) => errors.push(error) });
    await follower.catchUp();
    svc.deps.vectorIndex = follower;
  });
  afterAll(async () => {
    svc.deps.vectorIndex = undefined;
    await follower?.close();
  });

  const servesInMemory = async (query: string) => {
    const response = await svc.app.handle(
      new Request("http://localhost/api/search", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, search_mode: "hybrid", threshold: 0, entity_types: ["agent_playbooks"] }),
      }),
    );
    expect(response.status).toBe(200);
    return response.headers.get("server-timing")!;
  };

  test("searches run in memory and rank as the statements do", async () => {
    expect(follower.text.serves("agent_playbooks", { scope, must: [] })).toBe(true);
    const stages = await servesInMemory("refund my order");
    expect(stages).toContain("agent_playbooks;dur=");
    expect(stages).toMatch(/agent_playbooks;dur=[\d.]+;desc="memory"/);
    expect(stages).toContain("agent_playbooks.text;");
    for (const query of QUERIES) {
      for (const mode of ["fts", "hybrid"] as const) {
        const inMemory = await search(query, mode);
        svc.deps.vectorIndex = undefined;
        const inSql = await search(query, mode);
        svc.deps.vectorIndex = follower;
        expect(inMemory).toEqual(inSql);
      }
    }
  });

  test("answers the rows it found as the statements read them, and follows every column a search returns", async () => {
    const odd = `Ünïcödé "quotes" \\ back\\slash, 'apostrophe', 🦀, a tab\tand a newline\n end`;
    const user = "rows-in-memory";
    const profiles = [
      { user_id: user, content: `likes the canoe ${odd}`, tags: ["odd tag", "ü"], custom_feature: odd, profile_time_to_live: "one_week" },
      { user_id: user, content: "likes the canoe in the morning", extractor_name: "morning", generated_from_request_id: "r-1" },
    ];
    expect((await svc.call("POST", "/api/add_user_profile", { user_profiles: profiles })).status).toBe(200);
    await addUserPlaybooks(svc, [
      { user_id: user, trigger: `the canoe ${odd}`, content: "Offer the canoe", rationale: odd, tags: ["a", "b"] },
      { user_id: user, trigger: "a canoe in the morning", content: "Offer the morning tour" },
    ]);
    const [source] = await addUserPlaybooks(svc, [{ user_id: "someone-else", trigger: "a canoe trip", content: "Offer the canoe trip" }]);
    const [agent] = await addAgentPlaybooks(svc, [
      { trigger: `the canoe ${odd}`, content: "Offer the canoe", playbook_status: "APPROVED", tags: ["x"], source_user_playbook_ids: [source] },
    ]);
    const body = JSON.stringify({ query: "canoe morning", user_id: user, search_mode: "hybrid", threshold: 0, top_k: 10 });
    const searchOnce = async () => {
      const response = await svc.app.handle(
        new Request("http://localhost/api/search", { method: "POST", headers: { "content-type": "application/json" }, body }),
      );
      expect(response.status).toBe(200);
      const found = (await response.json()) as any;
      // Each search issues receipts of its own.
      for (const playbook of found.user_playbooks) delete playbook.exposure_receipt;
      return { found, stages: response.headers.get("server-timing")! };
    };
    const bothWays = async () => {
      const inMemory = await searchOnce();
      svc.deps.vectorIndex = undefined;
      const inSql = await searchOnce();
      svc.deps.vectorIndex = follower;
      // No statement read the rows of any kind: the follower holds them all.
      for (const kind of ["profiles", "user_playbooks", "agent_playbooks"]) {
        expect(inMemory.stages).toMatch(new RegExp(`${kind};dur=[\\d.]+;desc="memory"`));
        expect(inMemory.stages).not.toContain(`${kind}.sql`);
      }
      expect(inMemory.found).toEqual(inSql.found);
      return inMemory.found;
    };
    const found = await bothWays();
    expect(found.profiles.map((p: any) => p.content).sort()).toEqual(profiles.map((p) => p.content).sort());
    expect(found.user_playbooks.length).toBe(2);
    expect(found.agent_playbooks.find((p: any) => p.agent_playbook_id === agent).source_user_playbook_ids).toEqual([source]);

    // Columns no search filters or scores by, written alone: the rows are read again all the same.
    await svc.db.query("UPDATE user_playbooks SET last_modified_timestamp = 4000000000 WHERE user_id = $1", [user]);
    await svc.db.query(`UPDATE agent_playbooks SET playbook_metadata = '{"moved":true}' WHERE agent_playbook_id = $1`, [agent]);
    const after = await bothWays();
    expect(after.user_playbooks.map((p: any) => p.last_modified_timestamp)).toEqual([4000000000, 4000000000]);
    expect(after.agent_playbooks.find((p: any) => p.agent_playbook_id === agent).playbook_metadata).toBe('{"moved":true}');
    // A source deleted: the agent playbook's links go with it, and its row is read again.
    expect((await svc.call("DELETE", "/api/delete_user_playbook", { user_playbook_id: source })).status).toBe(200);
    const unlinked = await bothWays();
    expect(unlinked.agent_playbooks.find((p: any) => p.agent_playbook_id === agent).source_user_playbook_ids).toEqual([]);
  });

  // Embedded only: beside a server every search reads the log again from the oldest transaction
  // still open, which may take the row in again; the path under test is the same in both modes.
  test.skipIf(!embedded)("a row found by one arm that the text index no longer holds is read by the statement", async () => {
    const [lantern] = await addAgentPlaybooks(svc, [{ trigger: "a lantern flickers", content: "Replace the lantern's wick", playbook_status: "APPROVED" }]);
    await follower.catchUp();
    // As if it were deleted between the graph's walk and the answer: the graph still names it.
    (follower as unknown as { textIndex: TextIndex }).textIndex.delete("agent_playbooks", [{ scope, id: String(lantern) }]);
    const body = JSON.stringify({ query: "a lantern flickers", search_mode: "hybrid", threshold: 0, entity_types: ["agent_playbooks"] });
    const searchOnce = () =>
      svc.app.handle(new Request("http://localhost/api/search", { method: "POST", headers: { "content-type": "application/json" }, body }));
    const response = await searchOnce();
    expect(response.status).toBe(200);
    expect(response.headers.get("server-timing")!).toMatch(/agent_playbooks\.sql;dur=/);
    const found = (await response.json()) as any;
    expect(found.agent_playbooks.map((p: any) => p.agent_playbook_id)).toContain(lantern!);
    svc.deps.vectorIndex = undefined;
    const inSql = await (await searchOnce()).json();
    svc.deps.vectorIndex = follower;
    expect(found).toEqual(inSql);
    expect((await svc.call("DELETE", "/api/delete_agent_playbook", { agent_playbook_id: lantern })).status).toBe(200);
  });

  test("follows adds, updates, deletes and erasure: what is gone is never served", async () => {
    const [added] = await addAgentPlaybooks(svc, [{ trigger: "a voucher code fails", content: "Reissue the voucher", playbook_status: "APPROVED" }]);
    expect(await search("voucher", "fts")).toEqual([added!]);
    const updated = await svc.call("PUT", "/api/update_agent_playbook", {
      agent_playbook_id: added,
      trigger: "a coupon code fails",
      content: "Reissue the coupon",
    });
    expect(updated.status).toBe(200);
    expect(await search("voucher", "fts")).toEqual([]);
    expect(await search("coupon", "fts")).toEqual([added!]);
    expect((await svc.call("DELETE", "/api/delete_agent_playbook", { agent_playbook_id: added })).status).toBe(200);
    expect(await search("coupon", "hybrid")).not.toContain(added!);

    // Erasure of a user (governance), in an organisation of its own.
    const tenant = await createTenant(svc.deps, "text-arm-erasure");
    const added2 = await svc.call(
      "POST",
      "/api/add_user_playbook",
      { user_playbooks: [{ user_id: "erased-user", trigger: "a kayak paddle snapped", content: "Ship a new paddle" }] },
      bearer(tenant.fullKey),
    );
    expect(added2.status).toBe(200);
    const mine = added2.body.user_playbook_ids[0] as number;
    expect(await userSearch("kayak paddle", "erased-user", bearer(tenant.fullKey))).toEqual([mine]);
    const governance = { ...bearer(tenant.governanceSession), "x-service-project": "default" };
    const erase = await svc.call("POST", "/api/governance/erase-user", { user_id: "erased-user", request_id: "erase-text-arm" }, governance);
    expect(erase.status).toBe(202);
    for (let attempt = 0; ; attempt++) {
      await svc.learningIdle();
      const status = await svc.call("GET", `/api/governance/purge-operations/${erase.body.purge_id}`, undefined, governance);
      if (status.body.status === "complete") break;
      expect(attempt).toBeLessThan(100);
      await Bun.sleep(50);
    }
    expect(await userSearch("kayak paddle", "erased-user", bearer(tenant.fullKey))).toEqual([]);
    expect(await search("kayak paddle", "fts")).toEqual([]);
  });

  test.skipIf(!embedded)("a restart from the graph's save reads the rows' text again, and what changed meanwhile", async () => {
    await follower.close();
    // Written while no process follows the log.
    const [meanwhile] = await addAgentPlaybooks(svc, [{ trigger: "a snorkel leaks", content: "Send a new snorkel", playbook_status: "APPROVED" }]);
    follower = await ChangeLogFollower.open(svc.db, { directory, onError: (error) => errors.push(error) });
    svc.deps.vectorIndex = follower;
    expect(follower.startedFrom).toBe("save");
    await follower.catchUp();
    expect(follower.text.serves("agent_playbooks", { scope, must: [] })).toBe(true);
    expect(await search("snorkel", "fts")).toEqual([meanwhile!]);
    const stages = await servesInMemory("refund my order");
    expect(stages).toMatch(/agent_playbooks;dur=[\d.]+;desc="memory"/);
    svc.deps.vectorIndex = undefined;
    const inSql = await search("refund my order", "fts");
    svc.deps.vectorIndex = follower;
    expect(await search("refund my order", "fts")).toEqual(inSql);
  });
});
