import { startFakeLlmServer } from "@als/test-support/llm-server.ts";
import { scriptedReply } from "@als/test-support/scripted-llm.ts";
import { randomPort, spawnServer, spawnWorker, until } from "@als/test-support/server-process.ts";
import { startTcpProxy, type TcpProxy } from "@als/test-support/tcp-proxy.ts";
import { Connection } from "@temporalio/client";
import type { Subprocess } from "bun";
import postgres from "postgres";

/**
 * The bounds the chaos suite runs the processes with: short, so an outage shows within seconds.
 * A statement outlives the publish admission deadline on purpose: a publish stuck behind a lock or a
 * partition answers 504 (admission_timeout) before its statement gives up.
 */
export const CHAOS_SETTINGS = {
  DATABASE_CONNECT_TIMEOUT_MS: 1_000,
  DATABASE_ACQUIRE_TIMEOUT_MS: 1_000,
  DATABASE_STATEMENT_TIMEOUT_MS: 4_000,
  SERVICE_PUBLISH_ADMISSION_TIMEOUT_MS: 2_500,
  SERVICE_PUBLISH_CONCURRENCY: 4,
  SERVICE_HEALTH_TIMEOUT_MS: 1_000,
} as const;

/** Scheduling slack on a two-core machine running PostgreSQL, Temporal, the server, the worker and the test. */
const SLACK_MS = 1_500;

/** How long each kind of call may take, whatever happens to the storage. */
export const BOUNDS = {
  publishMs: CHAOS_SETTINGS.SERVICE_PUBLISH_ADMISSION_TIMEOUT_MS + SLACK_MS,
  healthMs: CHAOS_SETTINGS.SERVICE_HEALTH_TIMEOUT_MS + SLACK_MS,
  // POST /api/search: its five-second deadline, plus the five-second budget of finalizing what it serves.
  searchMs: 10_000 + SLACK_MS,
} as const;

export interface Answer {
  status: number;
  body: any;
  ms: number;
}

/** The error reason of a 503/504 body, where the contract's detail object or the top level carries it. */
export const reasonOf = (body: any): string | undefined => body?.detail?.reason ?? body?.reason;
export const requestIdOf = (body: any): string | undefined => body?.request_id ?? body?.detail?.request_id;

export interface ChaosServiceOptions {
  /** The database's server, reached directly by the test; default TEST_DATABASE_URL. */
  databaseUrl: string;
  /** Start a full-mode worker on Temporal too (else the server's reconciler does the learning). */
  worker: boolean;
}

/**
 * A real API server process (and a real worker process) on a database whose every connection from
 * them goes through a TCP proxy the test controls; the test itself reaches the database directly.
 */
export async function startChaosService(options: ChaosServiceOptions) {
  const direct = new URL(options.databaseUrl);
  const proxy: TcpProxy = startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
  const proxied = new URL(options.databaseUrl);
  proxied.port = String(proxy.port);
  const llm = await startFakeLlmServer(scriptedReply);
  const taskQueue = `chaos-${crypto.randomUUID()}`;
  const temporalAddress = process.env.TEMPORAL_ADDRESS;
  if (options.worker && !temporalAddress) throw new Error("the chaos suite needs TEMPORAL_ADDRESS (scripts/test starts Temporal and sets it)");
  const env: Record<string, string> = {
    DATABASE_URL: proxied.toString(),
    LLM_PROVIDER: "openai-compatible",
    LLM_BASE_URL: llm.baseUrl,
    LLM_MODEL: "scripted-model",
    LLM_CONTEXT_WINDOW_TOKENS: "128000",
    ...Object.fromEntries(Object.entries(CHAOS_SETTINGS).map(([name, value]) => [name, String(value)])),
    ...(options.worker && { TEMPORAL_ADDRESS: temporalAddress!, TEMPORAL_TASK_QUEUE: taskQueue }),
  };
  const port = randomPort();
  const url = `http://127.0.0.1:${port}`;
  const server: Subprocess = spawnServer(port, env);
  const worker: Subprocess | undefined = options.worker ? spawnWorker(env) : undefined;
  const admin = postgres(options.databaseUrl, { max: 2, onnotice: () => {} });

  const call = async (method: "GET" | "POST", path: string, body?: unknown, timeoutMs = 30_000): Promise<Answer> => {
    const started = performance.now();
    const response = await fetch(url + path, {
      method,
      ...(body !== undefined && { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started };
  };

  await until(async () => ((await call("GET", "/health", undefined, 2_000)).status === 200 ? true : undefined), 60_000);
  if (worker) await workerPolling(temporalAddress!, taskQueue);

  return {
    url,
    proxy,
    server,
    worker,
    /** A connection to the test's database that bypasses the proxy. */
    admin,
    call,
    publish: (userId: string, content: string, extra: Record<string, unknown> = {}) =>
      call(
        "POST",
        "/api/publish_interaction",
        { user_id: userId, session_id: `${userId}-session`, interaction_data_list: [{ role: "user", content }], ...extra },
        BOUNDS.publishMs + 5_000,
      ),
    search: (userId: string, query: string) => call("POST", "/api/search", { user_id: userId, query }, BOUNDS.searchMs + 5_000),
    health: () => call("GET", "/health", undefined, BOUNDS.healthMs + 5_000),
    /** Whether the server (and the worker) still run. */
    alive: () => server.exitCode === null && server.signalCode === null && (!worker || (worker.exitCode === null && worker.signalCode === null)),
    /** Ends every other session of the test's database (the server's and the worker's): pg_terminate_backend. */
    async terminateBackends(): Promise<number> {
      const killed =
        await admin`SELECT count(*)::int AS killed FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) AS terminated`;
      return killed[0]!.killed as number;
    },
    /** The request ids of `ids` that are stored. */
    async storedRequests(ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await admin<{ request_id: string }[]>`SELECT request_id FROM requests WHERE request_id = ANY(${ids})`;
      return new Set(rows.map((row) => row.request_id));
    },
    async close() {
      server.kill("SIGTERM");
      worker?.kill("SIGTERM");
      await Promise.race([Promise.all([server.exited, worker?.exited]), Bun.sleep(15_000)]);
      server.kill("SIGKILL");
      worker?.kill("SIGKILL");
      proxy.stop();
      await llm.close();
      await admin.end({ timeout: 1 });
    },
  };
}

export type ChaosService = Awaited<ReturnType<typeof startChaosService>>;

/** Waits until a worker polls `taskQueue` (its start bundles the workflows, which takes a while). */
async function workerPolling(address: string, taskQueue: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await until(async () => {
      const described = await connection.workflowService.describeTaskQueue({ namespace: "default", taskQueue: { name: taskQueue }, taskQueueType: 1 });
      return (described.pollers?.length ?? 0) > 0 ? true : undefined;
    }, 90_000);
  } finally {
    await connection.close();
  }
}

/**
 * Runs `loops` sequential callers of `call` until `running()` turns false, collecting every answer
 * (a fetch that fails or times out is recorded as status 0).
 */
export async function keepCalling(loops: number, running: () => boolean, call: (loop: number, round: number) => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let round = 0; running(); round++) {
        const started = performance.now();
        try {
          answers.push(await call(loop, round));
        } catch (error) {
          answers.push({ status: 0, body: { error: String(error) }, ms: performance.now() - started });
        }
      }
    }),
  );
  return answers;
}
