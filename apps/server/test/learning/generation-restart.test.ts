import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type StorageOptions } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { holdCall, scriptedReply } from "@als/test-support/scripted-llm.ts";
import { randomPort, spawnServer, spawnWorker, stopProcess, until, untilHealthy } from "@als/test-support/server-process.ts";

// A manual generation whose processes are killed in the middle of the run, then started again on
// the same data. Embedded: the one server process, restarted on the same data directory. Full: the
// API server and the worker (the run is a Temporal workflow on the worker), both killed and restarted.

const USERS = { ana: "I have a golden retriever called Biscuit.", bo: "I am vegan.", cy: "I am in Lisbon this week." };

const hold = holdCall((request) => request.schemaName === "profile_extraction" && request.user.includes("I am bo,"));
const llm = await startFakeLlmServer(async (request) => {
  await hold.wait(request);
  return scriptedReply(request);
});
const dataDir = mkdtempSync(join(tmpdir(), "als-generation-restart-"));
afterAll(async () => {
  await llm.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Deployment {
  url: string;
  start(): Promise<void>;
  /** SIGKILL: no chance to clean up. */
  kill(): Promise<void>;
  stop(): Promise<void>;
  storage: StorageOptions;
  close(): Promise<void>;
}

const LLM_ENV = { LLM_PROVIDER: "openai-compatible", LLM_BASE_URL: llm.baseUrl, LLM_MODEL: "scripted-model", LLM_CONTEXT_WINDOW_TOKENS: "128000" };

function embeddedDeployment(): Deployment {
  const port = randomPort();
  let server: ReturnType<typeof spawnServer> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    async start() {
      server = spawnServer(port, { DATA_DIR: dataDir, ...LLM_ENV });
    },
    kill: () => stopProcess(server!, "SIGKILL"),
    stop: () => stopProcess(server!, "SIGTERM"),
    storage: { kind: "pglite", dataDir: join(dataDir, "pglite") },
    async close() {},
  };
}

async function fullDeployment(): Promise<Deployment> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  const temporal = process.env.TEMPORAL_ADDRESS;
  if (!serverUrl || !temporal) throw new Error("TEST_MODE=full needs TEST_DATABASE_URL and TEMPORAL_ADDRESS (scripts/test sets them)");
  const database = await createFreshDatabase(serverUrl);
  const env = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporal, TEMPORAL_TASK_QUEUE: `generation-restart-${crypto.randomUUID()}`, ...LLM_ENV };
  const port = randomPort();
  let processes: ReturnType<typeof spawnServer>[] = [];
  return {
    url: `http://127.0.0.1:${port}`,
    async start() {
      processes = [spawnServer(port, env), spawnWorker(env)];
    },
    async kill() {
      await Promise.all(processes.map((p) => stopProcess(p, "SIGKILL")));
    },
    async stop() {
      await Promise.all(processes.map((p) => stopProcess(p, "SIGTERM")));
    },
    storage: { kind: "postgres", url: database.url },
    close: () => database.drop(),
  };
}

async function post(url: string, body: object) {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return (await response.json()) as any;
}

async function runsOf(storage: StorageOptions) {
  const db = await openDatabase(storage);
  try {
    return await db.query<{ kind: string; status: string; attempts: number; result: unknown }>("SELECT kind, status, attempts, result FROM generation_runs");
  } finally {
    await db.close();
  }
}

test(`a manual generation killed mid-run completes exactly once after restart (${testMode})`, async () => {
  const deployment = testMode === "embedded" ? embeddedDeployment() : await fullDeployment();
  try {
    await deployment.start();
    await untilHealthy(deployment.url);
    // One interaction per request stays below the default stride: learning leaves them alone.
    for (const [userId, content] of Object.entries(USERS)) {
      await post(`${deployment.url}/api/publish_interaction`, {
        user_id: userId,
        session_id: userId,
        interaction_data_list: [{ content: `I am ${userId}, ${content}` }],
      });
    }
    await post(`${deployment.url}/api/manual_profile_generation`, {});
    // ana's profile is committed, bo's extraction is under way: the run is killed here.
    await hold.reached;
    await deployment.kill();
    hold.release();

    await deployment.start();
    const profilesOf = async (userId: string) =>
      (await post(`${deployment.url}/api/get_profiles`, { user_id: userId, status_filter: ["CURRENT", "PENDING", "ARCHIVED"] })).user_profiles.map(
        (p: any) => p.content,
      );
    try {
      // Full mode waits for Temporal to notice the dead worker (the activity's heartbeat timeout).
      await until(async () => ((await profilesOf("cy")).length > 0 ? true : undefined), 120_000);
      expect(await profilesOf("ana")).toEqual(["Owns a golden retriever named Biscuit"]);
      expect(await profilesOf("bo")).toEqual(["Is vegan"]);
      expect(await profilesOf("cy")).toEqual(["Is in Lisbon this week"]);
    } finally {
      await deployment.stop();
    }
    const extractions = (userId: string) => llm.requests.filter((r) => r.schemaName === "profile_extraction" && r.user.includes(`I am ${userId},`)).length;
    expect([extractions("ana"), extractions("bo"), extractions("cy")]).toEqual([1, 2, 1]);
    expect(await runsOf(deployment.storage)).toEqual([{ kind: "manual", status: "succeeded", attempts: 2, result: { users: 3, learnings_created: 3 } }]);
  } finally {
    await deployment.close();
  }
}, 240_000);
