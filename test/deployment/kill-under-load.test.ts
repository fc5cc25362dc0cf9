import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Client, createClient } from "@als/client";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { Connection, Client as TemporalClient } from "@temporalio/client";
import postgres from "postgres";
import { type BalancedDeployment, organisationWithKey, startBalancedDeployment } from "./balanced-deployment.ts";

// Publishes and searches through the balancer while one API process and one worker are killed with
// SIGKILL: every publish the typed client was answered for is stored once (its retries carry the
// same Idempotency-Key), every user's learning runs to the end on the processes left, and what one
// API process writes is found through the other.

const USERS = 6;
const PUBLISHES_PER_USER = 8;
/** Acknowledged publishes after which the two processes are killed. */
const KILL_AFTER = 12;

const llm = await startFakeLlmServer(scriptedReply);
let deployment: BalancedDeployment;
let client: Client;
let apiKey: string;
let sql: postgres.Sql;

beforeAll(async () => {
  deployment = await startBalancedDeployment("kill-under-load", {
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
  });
  ({ apiKey } = await organisationWithKey(deployment, "127.0.0.80", "the owner's own password"));
  // The typed client retries a POST that carries an Idempotency-Key after a network error or a 502/503/504.
  client = createClient({ baseUrl: deployment.url, apiKey, retries: 4 });
  sql = postgres(deployment.databaseUrl, { max: 1, onnotice: () => {} });
}, 180_000);
afterAll(async () => {
  await sql?.end();
  await deployment?.close();
  await llm.close();
});

test("kill -9 of an API process and a worker under publish and search load loses and duplicates nothing, and learning completes", async () => {
  // What one process writes, the other finds: an added profile searched for through the other process.
  const [first, second] = deployment.apiUrls.map((baseUrl) => createClient({ baseUrl, apiKey, retries: 0 })) as [Client, Client];
  await first.profiles.add({ user_profiles: [{ user_id: "visibility", content: "Keeps three beehives in the garden" }] });
  // How long after the add's answer the first search through api-2 that found it was sent (0: the first one did).
  const addedAt = performance.now();
  let seenAfterMs = -1;
  for (let read = 0; seenAfterMs < 0; read++) {
    const sentAt = performance.now();
    const found = await second.profiles.search({ user_id: "visibility", query: "beehives", search_mode: "hybrid" });
    if (found.user_profiles.length > 0) seenAfterMs = read === 0 ? 0 : sentAt - addedAt;
    else if (sentAt - addedAt > 5_000) throw new Error("a profile added through api-1 was not found through api-2 within 5 s");
  }
  expect(seenAfterMs).toBeLessThan(1_000);

  let acknowledged = 0;
  let killed: Promise<void> | undefined;
  const requestIds: string[] = [];
  const publishes = Array.from({ length: USERS }, async (_, u) => {
    for (let i = 0; i < PUBLISHES_PER_USER; i++) {
      const answer = await client.interactions.publish({
        user_id: `user-${u}`,
        session_id: `session-${u}`,
        interaction_data_list: [
          { role: "User", content: `Message ${i}: I have a golden retriever and need a walking plan.` },
          { role: "Agent", content: `Walk ${i}: thirty minutes in the morning.` },
        ],
      });
      requestIds.push(answer.request_id);
      if (++acknowledged === KILL_AFTER) killed = Promise.all([deployment.kill("api-1"), deployment.kill("worker-1")]).then(() => {});
    }
  });
  // A search cut off by the kill fails (a read the caller may simply send again); the others answer.
  let searches = 0;
  let searchesCut = 0;
  let searching = true;
  const searcher = (async () => {
    while (searching) {
      const answered = await client.search.unified({ user_id: `user-${searches % USERS}`, query: "dog walking plan" }).then(
        () => true,
        () => false,
      );
      if (answered) searches++;
      else searchesCut++;
    }
  })();
  try {
    await Promise.all(publishes);
  } finally {
    searching = false;
    await searcher;
  }
  await killed;

  // Nothing acknowledged lost, nothing duplicated.
  const stored = await sql<{ requests: number; distinct_requests: number; interactions: number }[]>`
    SELECT count(*)::int AS requests, count(DISTINCT request_id)::int AS distinct_requests,
           (SELECT count(*)::int FROM interactions WHERE user_id LIKE 'user-%') AS interactions
      FROM requests WHERE user_id LIKE 'user-%'`;
  expect(new Set(requestIds).size).toBe(USERS * PUBLISHES_PER_USER);
  expect(stored[0]).toEqual({
    requests: USERS * PUBLISHES_PER_USER,
    distinct_requests: USERS * PUBLISHES_PER_USER,
    interactions: USERS * PUBLISHES_PER_USER * 2,
  });

  // Learning finishes on the processes left: every request learned, one profile per user however often a window ran.
  for (let u = 0; u < USERS; u++) await client.interactions.finalizeSession({ user_id: `user-${u}`, session_id: `session-${u}` });
  const deadline = performance.now() + 120_000;
  const unfinished = async () => {
    const statuses = await Promise.all(requestIds.map((request_id) => client.interactions.learningStatus({ request_id })));
    return statuses.filter((status) => status.status !== "done");
  };
  while ((await unfinished()).length > 0) {
    if (performance.now() > deadline) throw new Error(`learning not done in 120 s: ${JSON.stringify((await unfinished()).slice(0, 3))}`);
    await Bun.sleep(500);
  }
  for (let u = 0; u < USERS; u++) {
    const profiles = (await client.profiles.get({ user_id: `user-${u}` })).user_profiles;
    expect(profiles.filter((profile) => profile.content.includes("golden retriever"))).toHaveLength(1);
  }

  // The work is Temporal's: the users' learning workflows on the deployment's task queue, seen as the UI lists them.
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const temporal = new TemporalClient({ connection });
    const learning: string[] = [];
    for await (const workflow of temporal.workflow.list({ query: `TaskQueue = "${deployment.taskQueue}"` })) {
      if (workflow.type === "learnUserWorkflow") learning.push(workflow.workflowId);
    }
    expect(learning.length).toBeGreaterThanOrEqual(USERS);
  } finally {
    await connection.close();
  }
  console.info(
    `kill under load: ${acknowledged} publishes acknowledged, ${searches} searches answered and ${searchesCut} cut off, api-1 and worker-1 killed after ${KILL_AFTER}; ` +
      `stored ${stored[0]!.requests} requests (0 lost, 0 duplicated); a profile added through api-1 found by a search through api-2 sent ${seenAfterMs.toFixed(0)} ms after the add's answer`,
  );
}, 300_000);
