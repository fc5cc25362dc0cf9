import type { Llm, Reranker } from "@als/ai";
import { createClient } from "@als/client";
import {
  ChangeLogFollower,
  type CoreDeps,
  createProcessServices,
  type DataSourceSettings,
  keepLearningHnswWhereSearched,
  Reconciler,
  type TrustedProxy,
} from "@als/core";
import type { StorageTimeouts } from "@als/db";
import type { AccountServices, AuthMode, RateLimits } from "@als/identity";
import { buildApp } from "../../apps/server/src/app.ts";
import { createLogger } from "../../apps/server/src/logger.ts";
import { sharedComputePool } from "./compute.ts";
import { freshDatabase, testMode } from "./database.ts";
import { sharedEmbedder } from "./embedder.ts";
import { sharedProcessActivity } from "./process-activity.ts";

export interface TestResponse<T = any> {
  status: number;
  body: T;
}

export interface TestServiceOptions {
  /** The LLM provider (a real provider client pointed at a deterministic server); unset: none configured. */
  llm?: Llm;
  /** The cross-encoder of rerank_user_profiles (tiny-cross-encoder.ts); unset: none configured, reranking answers 503. */
  reranker?: Reranker;
  /** Unset: `local`, requests without a credential are the local organisation. */
  authMode?: AuthMode;
  /** Unset: DEFAULT_RATE_LIMITS. */
  rateLimits?: Partial<RateLimits>;
  /** The account endpoints' mailer, OIDC client and public URL; unset: mails logged, no OIDC. */
  accounts?: AccountServices;
  /** The proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES); unset: none. */
  trustedProxies?: readonly TrustedProxy[];
  /** Trace providers' hosts replaced by deterministic servers (trace-providers/); unset: the public hosts. */
  dataSources?: DataSourceSettings;
  /** How long a call may wait on the storage; unset: the defaults. */
  storageTimeouts?: StorageTimeouts;
  /** How long a request may run before it answers 504 (backstop_timeout); unset: the server's default. */
  backstopMs?: number;
  /**
   * "in-process": searches go through the in-process indexes, and the database drops the learnings'
   * HNSW indexes beside them, as a server with VECTOR_INDEX=in-process does; unset: TEST_VECTOR_INDEX,
   * else the database's own indexes.
   */
  vectorIndex?: "in-process";
}

/**
 * The real server application over a fresh database and the real embedding model, called through
 * `app.handle` with real Request objects. `clock` moves the service's notion of now. Learning runs
 * on the in-process reconciler in both modes (the Temporal workflows are tested by the worker's
 * suite); `learningIdle()` waits until it has nothing left to do.
 */
export async function startTestService(options: TestServiceOptions = {}) {
  const { db, storage, drop } = await freshDatabase(options.storageTimeouts);
  const clock = { now: Math.floor(Date.now() / 1000) };
  /** How long the orchestrator holds what it is told before the reconciler hears it; 0: at once. */
  const orchestratorDelay = { ms: 0 };
  const deps: CoreDeps = {
    db,
    services: createProcessServices(db, sharedProcessActivity()),
    embedder: await sharedEmbedder(),
    compute: sharedComputePool(),
    now: () => clock.now,
    storage,
    ...(options.llm && { llm: options.llm }),
    ...(options.reranker && { reranker: options.reranker }),
    ...(options.dataSources && { dataSources: options.dataSources }),
    // The reconciler, told late while a test slows its orchestrator down (a worker slow to pick work up).
    orchestrator: {
      schedule: (kind, scope, id) =>
        orchestratorDelay.ms > 0 ? void setTimeout(() => reconciler.schedule(kind, scope, id), orchestratorDelay.ms) : reconciler.schedule(kind, scope, id),
    },
  };
  const reconcilerErrors: unknown[] = [];
  // TEST_VECTOR_INDEX=in-process runs a file's searches through the in-process indexes, as an embedded server does by default.
  const inProcess = (options.vectorIndex ?? process.env.TEST_VECTOR_INDEX) === "in-process";
  const follower = inProcess ? await ChangeLogFollower.open(db, { onError: (error) => reconcilerErrors.push(error) }) : undefined;
  if (follower) {
    deps.vectorIndex = follower;
    await keepLearningHnswWhereSearched(db, { vectorIndex: "in-process" }, { info: () => {}, error: () => {} });
  }
  const reconciler = new Reconciler(deps, (error) => reconcilerErrors.push(error));
  const app = buildApp({
    deps,
    log: createLogger("error"),
    mode: testMode,
    strictResponses: true,
    // Every test's request runs the timing code and the header; bodies must not change for it.
    serverTiming: true,
    ...(options.authMode && { authMode: options.authMode }),
    ...(options.rateLimits && { rateLimits: options.rateLimits }),
    ...(options.accounts && { accounts: options.accounts }),
    ...(options.trustedProxies && { trustedProxies: options.trustedProxies }),
    ...(options.backstopMs && { backstopMs: options.backstopMs }),
  });

  /** Waits for the reconciler to finish what is due; fails when one of its passes failed. */
  async function learningIdle(): Promise<void> {
    await reconciler.idle();
    if (reconcilerErrors.length > 0) throw reconcilerErrors.shift();
  }

  async function call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse<T>> {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)["content-type"] = "application/json";
    }
    const response = await app.handle(new Request(`http://localhost${path}`, init));
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  /**
   * The typed client of @als/client, its requests handed to the app in process. One attempt per
   * call, as `call` makes: a test that expects a 503 must see that answer, not a retry of it.
   */
  const client = createClient({ baseUrl: "http://localhost", fetch: (url, init) => app.handle(new Request(url, init)), retries: 0 });

  async function close(): Promise<void> {
    reconciler.stop();
    await reconciler.idle();
    await follower?.close().catch(() => {});
    await drop();
  }

  return { app, deps, db, clock, orchestratorDelay, call, client, reconciler, learningIdle, close };
}

export type TestService = Awaited<ReturnType<typeof startTestService>>;
