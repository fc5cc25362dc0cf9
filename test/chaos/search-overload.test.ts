import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { BOUNDS, type ChaosService, startChaosService } from "./chaos-service.ts";

// Full mode: a real API server process on PostgreSQL, overloaded with long searches from outside.
const serverUrl = process.env.TEST_DATABASE_URL;
const fullMode = process.env.TEST_MODE === "full" && serverUrl !== undefined;

/** The longest query the contract accepts: 8,192 characters of varied words. */
const longQuery = (seed: number) =>
  Array.from({ length: 1_100 }, (_, i) => ["hiking", "refund", "allergy", "invoice", "garden", "travel", "coffee"][(i * 7 + seed) % 7])
    .join(" ")
    .slice(0, 8_192);

describe.skipIf(!fullMode)("search overload on a real server process", () => {
  let database: { url: string; drop: () => Promise<void> };
  let svc: ChaosService;

  beforeAll(async () => {
    database = await createFreshDatabase(serverUrl!);
    svc = await startChaosService({ databaseUrl: database.url, worker: false });
    const profiles = Array.from({ length: 200 }, (_, i) => ({ user_id: `user-${i % 10}`, content: `${longQuery(i).slice(0, 120)} note ${i}` }));
    expect((await svc.call("POST", "/api/add_user_profile", { user_profiles: profiles })).status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  test("200 concurrent 8 KB searches: each answers 200, 503 overloaded or 504 within its bound, the process lives, and an ordinary search right after is fast", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => svc.search(`user-${i % 10}`, longQuery(i))));
    const late = answers.filter((answer) => answer.ms > BOUNDS.searchMs).map((answer) => `${answer.status} after ${Math.round(answer.ms)} ms`);
    expect(late).toEqual([]);
    const statuses = new Set(answers.map((answer) => answer.status));
    const slowest = Math.round(Math.max(...answers.map((answer) => answer.ms)));
    const counts = [...statuses].map((status) => `${status}×${answers.filter((answer) => answer.status === status).length}`).join(", ");
    console.log(`search overload (full mode): ${counts}; slowest ${slowest} ms`);
    expect([...statuses].filter((status) => ![200, 503, 504].includes(status))).toEqual([]);
    for (const refused of answers.filter((answer) => answer.status === 503)) expect(refused.body.error).toBe("overloaded");
    expect(svc.alive()).toBe(true);

    const ordinary = await svc.search("user-1", "hiking");
    expect(ordinary.status).toBe(200);
    expect(ordinary.ms).toBeLessThan(2_000);
  }, 90_000);
});
