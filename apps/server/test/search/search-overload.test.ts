import { afterAll, beforeAll, expect, test } from "bun:test";
import { SearchSlots } from "@als/core";
import { testMode } from "@als/test-support/database.ts";
import { addAgentPlaybooks, addUserPlaybooks } from "@als/test-support/playbooks.ts";
import { startScriptedLlm } from "@als/test-support/scripted-llm.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

/** Searches fired at once: far more than the default SERVICE_SEARCH_CONCURRENCY (32). */
const BURST = 200;
/** Just under the 8,192-character cap of a query. */
const QUERY_CHARS = 8_000;
/** The contract's five-second deadline plus a five-second commit budget. */
const ANSWER_WITHIN_MS = 10_000;

const WORDS = ["refund", "order", "broken", "hiking", "mountain", "peanut", "allergy", "spanish", "reply", "delivery", "late", "polite", "customer", "invoice"];

/** A long query no other search of the burst sends, so that none is served from the embedding cache. */
function longQuery(seed: number): string {
  const parts: string[] = [`burst${seed}`];
  let state = seed + 1;
  let length = parts[0]!.length;
  while (length < QUERY_CHARS - 20) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = `${WORDS[state % WORDS.length]}${state % 97}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(" ");
}

let svc: TestService;

beforeAll(async () => {
  svc = await startTestService();
  await svc.client.profiles.add({
    user_profiles: Array.from({ length: 20 }, (_, index) => ({
      user_id: "ana",
      profile_id: `ana-${index}`,
      content: `${WORDS[index % WORDS.length]} note ${index}`,
    })),
  });
  await addUserPlaybooks(
    svc,
    Array.from({ length: 20 }, (_, index) => ({ user_id: "ana", content: `Offer a ${WORDS[index % WORDS.length]} when asked (${index})` })),
  );
  await addAgentPlaybooks(svc, [{ trigger: "a customer wants their money back", content: "Offer a refund", playbook_status: "APPROVED" }]);
});

afterAll(async () => {
  await svc?.close();
});

test(
  `${BURST} concurrent long searches each answer 200, 503 with Retry-After or 504 within ${ANSWER_WITHIN_MS / 1000} s, and a search after them is fast`,
  async () => {
    const answers = await Promise.all(
      Array.from({ length: BURST }, async (_, index) => {
        const startedAt = performance.now();
        const response = await svc.app.handle(
          new Request("http://localhost/api/search", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: longQuery(index), user_id: "ana", top_k: 5 }),
          }),
        );
        const body = (await response.json()) as { error?: string; retry_after?: number };
        return { status: response.status, ms: performance.now() - startedAt, retryAfter: response.headers.get("retry-after"), body };
      }),
    );
    const byStatus = Object.groupBy(answers, (answer) => String(answer.status));
    console.log(
      `burst: ${Object.entries(byStatus)
        .map(([status, group]) => `${status}×${group!.length}`)
        .join(", ")}; slowest ${Math.round(Math.max(...answers.map((answer) => answer.ms)))} ms`,
    );
    for (const answer of answers) {
      expect([200, 503, 504]).toContain(answer.status);
      expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
      if (answer.status === 503) {
        expect(answer.body.error).toBe("overloaded");
        expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        expect(answer.body.retry_after).toBe(Number(answer.retryAfter));
      }
      if (answer.status === 504) expect(answer.body.error).toBe("search_deadline");
    }
    // Some searches ran: shedding is for what cannot finish in time, not for everything.
    expect(byStatus["200"]?.length ?? 0).toBeGreaterThan(0);

    // Nothing of the burst is left running: an ordinary search right after it answers at once.
    const startedAt = performance.now();
    const after = await svc.call("POST", "/api/search", { query: "refund for a broken order", user_id: "ana", top_k: 5 });
    const afterMs = performance.now() - startedAt;
    expect(after.status).toBe(200);
    expect(afterMs).toBeLessThan(2_000);
  },
  { timeout: 30_000 },
);

test("per-entity searches are admitted under the same bound: beyond it they answer 503 overloaded with Retry-After", async () => {
  const found = await svc.call("POST", "/api/search_user_playbooks", { query: "refund", user_id: "ana", top_k: 3 });
  expect(found.status).toBe(200);
  expect(found.body.user_playbooks.length).toBeGreaterThan(0);

  const app = buildApp({
    deps: { ...svc.deps, search: { concurrency: 1 }, services: { ...svc.deps.services, searchSlots: new SearchSlots(1) } },
    log: createLogger("error"),
    mode: testMode,
    strictResponses: true,
  });
  const paths = ["/api/search_profiles", "/api/search_user_playbooks", "/api/search_agent_playbooks", "/api/search_interactions"];
  const answers = await Promise.all(
    // More than one slot can serve within the deadline: each embeds a long query, well over the
    // 12.5 ms that 400 of them in five seconds would allow.
    Array.from({ length: 400 }, async (_, index) => {
      const startedAt = performance.now();
      const response = await app.handle(
        new Request(`http://localhost${paths[index % paths.length]}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: longQuery(10_000 + index), user_id: "ana", top_k: 3 }),
        }),
      );
      const body = (await response.json()) as { error?: string };
      return { status: response.status, ms: performance.now() - startedAt, retryAfter: response.headers.get("retry-after"), body };
    }),
  );
  const refused = answers.filter((answer) => answer.status === 503);
  expect(answers.filter((answer) => answer.status !== 503).every((answer) => answer.status === 200)).toBe(true);
  expect(refused.length).toBeGreaterThan(0);
  expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(ANSWER_WITHIN_MS);
  for (const answer of refused) {
    expect(answer.body.error).toBe("overloaded");
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  }
}, 30_000);

test("a search that waited 2 s on a slow provider does not get ordinary searches refused after it, alone or 40 at once", async () => {
  // The provider answers after the reformulation budget (2 s): the search waits that long, then goes on without it.
  const llm = await startScriptedLlm(() => new Promise((resolve) => setTimeout(() => resolve({ text: "too late" }), 4000)));
  const slowSvc = await startTestService({ llm: llm.llm });
  try {
    await addAgentPlaybooks(slowSvc, [{ trigger: "Refund requests", content: "Check the order date before promising a refund", playbook_status: "APPROVED" }]);
    const slow = await slowSvc.call("POST", "/api/search", { query: "passport flights", user_id: "ana", enable_reformulation: true });
    expect(slow.status).toBe(200);
    expect(slow.body.degradation.components).toEqual([{ component: "reformulation", reason: "reformulation_timeout" }]);

    const alone = await slowSvc.call("POST", "/api/search", { query: "refunds", user_id: "ana" });
    expect(alone.status).toBe(200);
    // What the experiments test sends: more searches at once than there are slots, none of them heavy.
    const together = await Promise.all(
      Array.from({ length: 40 }, (_, index) => slowSvc.call("POST", "/api/search", { query: "refunds", user_id: `user-${index}` })),
    );
    expect(together.map((answer) => answer.status)).toEqual(together.map(() => 200));
  } finally {
    await slowSvc.close();
    await llm.server.close();
  }
}, 30_000);
