import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { drainVectorOutbox, prepareVectorIndex } from "@als/core";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { qdrantSkipReason, testQdrant } from "@als/test-support/qdrant.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { bothPaths as answeredBothWays } from "@als/test-support/vector-index-paths.ts";
import { PgVectorIndex, type VectorIndex } from "@als/vector";

// The ranked searches with a vector index configured (as with QDRANT_URL) ask it for the vector
// arm and fuse in code; pgvector's index answers through that path here, and a real Qdrant server
// where QDRANT_URL is set (filled from the record as a starting process fills it), so both paths
// must serve the same rows.
let svc: TestService;
const qdrant = qdrantSkipReason === undefined ? testQdrant() : undefined;

/** The indexes asked, each opened once the rows are written. */
const INDEXES: { name: string; skipReason?: string | undefined; open(): Promise<VectorIndex> }[] = [
  { name: "pgvector", open: async () => new PgVectorIndex(svc.db) },
  {
    name: "Qdrant",
    skipReason: qdrantSkipReason,
    async open() {
      const index = qdrant!.index();
      await prepareVectorIndex({ db: svc.db, vectorIndex: index });
      await drainVectorOutbox({ db: svc.db, vectorIndex: index }, 100);
      return index;
    },
  },
];
let index: VectorIndex;

beforeAll(async () => {
  svc = await startTestService();
  const profiles = [
    { profile_id: "pet", content: "Owns a golden retriever named Biscuit", tags: ["pets"], source: "chat" },
    { profile_id: "diet", content: "Is allergic to peanuts and shellfish", tags: ["health", "food"], source: "intake" },
    { profile_id: "job", content: "Works as a backend engineer writing Go", tags: ["work"], source: "chat" },
    { profile_id: "sport", content: "Runs marathons on weekends and walks the dog", tags: ["hobby"] },
    { profile_id: "lang", content: "Prefers answers in Spanish", tags: ["style"], status: "ARCHIVED" },
    { profile_id: "cat", content: "Has a cat that hates the dog", tags: ["pets"], profile_time_to_live: "one_day" },
  ];
  for (const profile of profiles) {
    await svc.call("POST", "/api/add_user_profile", { user_profiles: [{ user_id: "fay", ...profile }] });
    svc.clock.now += 60;
  }
  const [chat, email, spanish] = await addUserPlaybooks(svc, [
    { user_id: "ivy", content: "Offer a refund when the order arrived broken", source: "chat", tags: ["billing"] },
    { user_id: "jon", content: "Offer a refund and apologise for the delay", source: "email" },
    { user_id: "ivy", content: "Reply in Spanish", trigger: "the user writes in Spanish", source: "email", status: "PENDING" },
  ]);
  await addAgentPlaybooks(svc, [
    {
      trigger: "a customer asks to get their money back",
      content: "Check the purchase date, then issue a refund",
      source_user_playbook_ids: [chat, email],
      playbook_status: "APPROVED",
      tags: ["billing"],
    },
    { trigger: "the user writes in Spanish", content: "Reply in Spanish", source_user_playbook_ids: [spanish], playbook_status: "APPROVED" },
    { trigger: "the service is down", content: "Share the status page link", playbook_status: "PENDING" },
  ]);
  for (const contents of [
    ["My flight to Tokyo leaves at dawn", "I will remind you"],
    ["Book a table at an Italian place", "Booked Trattoria Roma"],
  ]) {
    const published = await svc.call("POST", "/api/publish_interaction", {
      user_id: "ana",
      session_id: "s-1",
      interaction_data_list: contents.map((content, i) => ({ role: i % 2 ? "Agent" : "User", content })),
    });
    expect(published.status).toBe(200);
  }
  // Past the one-day time to live of "cat": both paths must leave it out.
  svc.clock.now += 2 * 86_400;
});
afterAll(async () => {
  await svc.close();
  await qdrant?.drop();
});

/** The same request answered without and with the vector index; the service is left without one. */
async function bothPaths(path: string, body: object) {
  const answers = await answeredBothWays(svc, index, path, body);
  svc.deps.vectorIndex = undefined;
  return answers;
}

const MODES = ["vector", "hybrid"];

describe.each(INDEXES)("ranked search through a vector index: $name", ({ open, skipReason }) => {
  const skipped = skipReason !== undefined;
  const indexTest = (title: string, body: () => Promise<void>) => test.skipIf(skipped)(skipped ? `${title} (skipped: ${skipReason})` : title, body);
  beforeAll(async () => {
    if (!skipped) index = await open();
  });

  indexTest("profiles: same rows in the same order, filters included", async () => {
    const requests = [
      { query: "what animal lives at home" },
      { query: "dog", threshold: 0 },
      { query: "dog", threshold: 0, tags: ["pets", "hobby"] },
      { query: "food", threshold: 0, source: "intake" },
      { query: "language", threshold: 0, status_filter: ["ARCHIVED"] },
    ];
    for (const request of requests) {
      for (const search_mode of MODES) {
        const { inSql, viaIndex } = await bothPaths("/api/search_profiles", { user_id: "fay", top_k: 3, search_mode, ...request });
        expect(viaIndex.user_profiles.map((p: any) => p.profile_id)).toEqual(inSql.user_profiles.map((p: any) => p.profile_id));
        expect(inSql.user_profiles.length).toBeGreaterThan(0);
      }
    }
    const { viaIndex } = await bothPaths("/api/search_profiles", { user_id: "fay", query: "dog", threshold: 0, top_k: 10 });
    expect(viaIndex.user_profiles.map((p: any) => p.profile_id)).not.toContain("cat");
  });

  indexTest("user and agent playbooks: same rows in the same order, filters included", async () => {
    const userRequests = [
      { query: "money back" },
      { query: "refund", threshold: 0, user_id: "ivy" },
      { query: "refund", threshold: 0, tags: ["billing"] },
      { query: "language", threshold: 0, source: "email" },
    ];
    for (const request of userRequests) {
      for (const search_mode of MODES) {
        const { inSql, viaIndex } = await bothPaths("/api/search_user_playbooks", { top_k: 3, search_mode, ...request });
        expect(viaIndex.user_playbooks.map((p: any) => p.user_playbook_id)).toEqual(inSql.user_playbooks.map((p: any) => p.user_playbook_id));
        expect(inSql.user_playbooks.length).toBeGreaterThan(0);
      }
    }
    const agentRequests = [
      { query: "reimbursement" },
      { query: "reply", threshold: 0, source: "email" },
      { query: "outage", threshold: 0, playbook_status_filter: ["PENDING"] },
    ];
    for (const request of agentRequests) {
      for (const search_mode of MODES) {
        const { inSql, viaIndex } = await bothPaths("/api/search_agent_playbooks", { top_k: 3, search_mode, ...request });
        expect(viaIndex.agent_playbooks.map((p: any) => p.agent_playbook_id)).toEqual(inSql.agent_playbooks.map((p: any) => p.agent_playbook_id));
        expect(inSql.agent_playbooks.length).toBeGreaterThan(0);
      }
    }
  });

  indexTest("interactions and unified search: same results", async () => {
    for (const search_mode of MODES) {
      const interactions = await bothPaths("/api/search_interactions", { user_id: "ana", query: "travel to Asia", search_mode, top_k: 2 });
      expect(interactions.viaIndex.interactions).toEqual(interactions.inSql.interactions);
      expect(interactions.inSql.interactions.length).toBeGreaterThan(0);
      const unified = await bothPaths("/api/search", { query: "refund for a broken order", user_id: "fay", search_mode, threshold: 0 });
      expect(unified.viaIndex).toEqual(unified.inSql);
      expect(unified.inSql.agent_playbooks.length).toBeGreaterThan(0);
    }
  });
});

describe("ranked search through a stale vector index", () => {
  test("a vector index without the row any more never brings it back", async () => {
    const [doomed] = await addUserPlaybooks(svc, [{ user_id: "zed", content: "Always greet the user by name" }]);
    await svc.call("DELETE", "/api/delete_user_playbook", { user_playbook_id: doomed });
    // A stale index still names the deleted row: the rows are read again from the database.
    svc.deps.vectorIndex = {
      ensureCollections: async () => false,
      upsert: async () => {},
      delete: async () => {},
      search: async () => [{ id: String(doomed), similarity: 0.99 }],
    };
    const response = await svc.call("POST", "/api/search_user_playbooks", { query: "greet by name", search_mode: "vector" });
    svc.deps.vectorIndex = undefined;
    expect(response.status).toBe(200);
    expect(response.body.user_playbooks).toEqual([]);
  });
});
