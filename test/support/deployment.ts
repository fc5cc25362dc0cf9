import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, Connection } from "@temporalio/client";
import type { Subprocess } from "bun";
import { testMode } from "./database.ts";
import { createFreshDatabase } from "./postgres-database.ts";
import { randomPort, spawnServer, spawnWorker, stopProcess, untilHealthy } from "./server-process.ts";

/** The service as real processes of the test's mode, which a test can kill outright and start again on the same storage. */
export interface Deployment {
  url: string;
  /** Starts the processes (`extraEnv` added to the one running durable work: the server embedded, the worker full) and waits until the server answers /health. */
  start(extraEnv?: Record<string, string>): Promise<void>;
  /**
   * Stops the server process (SIGKILL, if it still runs) and starts it again with `serverEnv` added,
   * the worker (full mode) running on meanwhile; waits until it answers /health.
   */
  restartServer(serverEnv?: Record<string, string>): Promise<void>;
  /** Resolves when the server process has exited (one that kills itself at a crash point). */
  serverExited(): Promise<void>;
  /** Resolves when every process started has exited (one that kills itself at a crash point). */
  exited(): Promise<void>;
  /** SIGKILL to every process: nothing is flushed or finished. */
  kill(): Promise<void>;
  /** SIGTERM to every process: each stops gracefully; the storage stays for the next start. */
  stop(): Promise<void>;
  /** Stops the processes and removes the storage. */
  close(): Promise<void>;
  post(path: string, body: object): Promise<{ status: number; body: any }>;
}

/**
 * Embedded: one server process over a data directory. Full: a server and a worker over a fresh
 * database, on a task queue of their own in the shared Temporal namespace, whose workflows close
 * with it. `env` is added to both.
 */
export async function startableDeployment(name: string, env: Record<string, string>): Promise<Deployment> {
  const port = randomPort();
  const url = `http://127.0.0.1:${port}`;
  let processes: Subprocess[] = [];
  let spawn: (extraEnv: Record<string, string>) => Subprocess[];
  let spawnServerOnly: (serverEnv: Record<string, string>) => Subprocess;
  let removeStorage: () => Promise<void>;
  if (testMode === "embedded") {
    const dataDir = mkdtempSync(join(tmpdir(), `als-${name}-`));
    spawn = (extraEnv) => [spawnServer(port, { DATA_DIR: dataDir, ...env, ...extraEnv })];
    spawnServerOnly = (serverEnv) => spawnServer(port, { DATA_DIR: dataDir, ...env, ...serverEnv });
    removeStorage = async () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    const database = await createFreshDatabase(process.env.TEST_DATABASE_URL!);
    const taskQueue = `${name}-${crypto.randomUUID()}`;
    const fullEnv = { DATABASE_URL: database.url, TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, TEMPORAL_TASK_QUEUE: taskQueue, ...env };
    spawn = (extraEnv) => [spawnServer(port, fullEnv), spawnWorker({ ...fullEnv, ...extraEnv })];
    spawnServerOnly = (serverEnv) => spawnServer(port, { ...fullEnv, ...serverEnv });
    removeStorage = async () => {
      await terminateWorkflowsOn(taskQueue);
      await database.drop();
    };
  }
  const stop = async (signal: NodeJS.Signals) => {
    await Promise.all(processes.map((p) => stopProcess(p, signal)));
    processes = [];
  };
  const healthy = () => untilHealthy(url);
  return {
    url,
    async start(extraEnv = {}) {
      processes = spawn(extraEnv);
      await healthy();
    },
    async restartServer(serverEnv = {}) {
      // The server is the first process in both modes.
      await stopProcess(processes[0]!, "SIGKILL");
      processes[0] = spawnServerOnly(serverEnv);
      await healthy();
    },
    serverExited: async () => void (await processes[0]!.exited),
    kill: () => stop("SIGKILL"),
    stop: () => stop("SIGTERM"),
    // Embedded: the server runs the durable work; full: the worker (the last process) does.
    exited: async () => void (await processes.at(-1)!.exited),
    async close() {
      await stop("SIGTERM");
      await removeStorage();
    },
    async post(path, body) {
      const response = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      return { status: response.status, body: await response.json() };
    },
  };
}

/**
 * Ends the workflows still running on a closed deployment's task queue. Every deployment serves the
 * local organisation, so its workflow ids (a user's learning: learn:local:default:<user>) are those
 * of the next deployment that meets the same user; left running, with no worker on their queue,
 * they would take that deployment's signals and never act on them.
 */
async function terminateWorkflowsOn(taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  try {
    const client = new Client({ connection });
    for await (const workflow of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
      await client.workflow.getHandle(workflow.workflowId, workflow.runId).terminate("the test deployment closed");
    }
  } finally {
    await connection.close();
  }
}
