import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createEmbedder } from "@als/ai";
import { NewUserPlaybook } from "@als/contract";
import { addUserPlaybooks, type CoreDeps, createProcessServices, type Orchestrator, systemClock } from "@als/core";
import { openDatabase, type Scope } from "@als/db";
import { type FakeLlmHandler, startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { registerProject } from "@als/test-support/register-project.ts";
import { workerCommand } from "@als/test-support/worker-bundle.ts";
import { scheduleThroughTemporal } from "@als/workflows/schedule-through-temporal";
import { Client, Connection } from "@temporalio/client";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const MODEL_DIR = `${ROOT}.cache/models/e5-small-v2-int8`;

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/test starts the services and sets it)`);
  return value;
}

/** A worker as its own process, as in production, so a test can kill it outright; `piped`: its output is the test's to read. */
export function spawnWorker(options: {
  databaseUrl: string;
  taskQueue: string;
  llmBaseUrl: string;
  env?: Record<string, string>;
  piped?: boolean;
}): ChildProcess {
  const [node, ...args] = workerCommand();
  return spawn(node as string, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      TEMPORAL_ADDRESS: requiredEnv("TEMPORAL_ADDRESS"),
      TEMPORAL_TASK_QUEUE: options.taskQueue,
      EMBEDDING_MODEL_DIR: MODEL_DIR,
      LLM_PROVIDER: "openai-compatible",
      LLM_BASE_URL: options.llmBaseUrl,
      LLM_MODEL: "scripted-model",
      LLM_CONTEXT_WINDOW_TOKENS: "128000",
      LOG_LEVEL: "error",
      ...options.env,
    },
    stdio: ["ignore", options.piped ? "pipe" : "inherit", options.piped ? "pipe" : "inherit"],
  });
}

export async function stopWorker(worker: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill(signal);
  await exited;
}

/**
 * What a full-mode worker test runs against: a fresh PostgreSQL database, the real embedding model,
 * a client of the Temporal dev server, and a deterministic LLM server answering with `llmHandler`.
 */
/** Schedules through Temporal as the API does; a test fails on a schedule that could not reach Temporal rather than wait for it. */
export function orchestratorOn(client: Client, taskQueue: string): Orchestrator {
  return scheduleThroughTemporal(client, taskQueue, (what, id, error) => {
    throw new Error(`could not ${what} (${id})`, { cause: error });
  });
}

export async function openFullModeEnvironment(llmHandler: FakeLlmHandler) {
  const database = await createFreshDatabase(requiredEnv("TEST_DATABASE_URL"));
  const db = await openDatabase({ kind: "postgres", url: database.url });
  const embedder = await createEmbedder({ kind: "local", modelDir: MODEL_DIR });
  const connection = await Connection.connect({ address: requiredEnv("TEMPORAL_ADDRESS") });
  const client = new Client({ connection });
  const llm = await startFakeLlmServer(llmHandler);
  return {
    database,
    db,
    /** The test process's services over `db`, as a composition root builds them once. */
    services: createProcessServices(db, sharedProcessActivity()),
    embedder,
    client,
    llm,
    async close() {
      await llm.close();
      await connection.close();
      await embedder.close();
      await db.close();
      await database.drop();
    },
  };
}

/** What the fake LLM answers an aggregation of the shipping playbooks below with. */
export const SHIPPING_AGGREGATE = {
  restates_approved: false,
  playbook_name: "Share tracking",
  trigger: "The user asks where the parcel is",
  content: "Share the tracking link and the carrier",
  rationale: "Several users asked",
  tags: ["shipping"],
};

/**
 * A new organisation's project whose three users wrote alike playbooks about shipping links (one
 * cluster to aggregate), and the core dependencies that schedule its work on `taskQueue`.
 */
export async function shippingPlaybooksProject(
  env: Awaited<ReturnType<typeof openFullModeEnvironment>>,
  taskQueue: string,
): Promise<{ scope: Scope; deps: CoreDeps }> {
  const scope = await registerProject(env.db, { orgId: `org-${crypto.randomUUID().slice(0, 8)}`, projectId: "default" });
  const deps: CoreDeps = { db: env.db, services: env.services, embedder: env.embedder, now: systemClock, orchestrator: orchestratorOn(env.client, taskQueue) };
  await addUserPlaybooks(
    deps,
    scope,
    ["Give the shipping tracking link", "Share the shipping tracking link", "Send the shipping tracking link"].map((content, i) =>
      NewUserPlaybook.parse({ user_id: `u-${i}`, agent_version: "v1", trigger: "The user asks where the parcel is", content }),
    ),
  );
  return { scope, deps };
}
