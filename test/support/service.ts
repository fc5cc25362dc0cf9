import type { CoreDeps } from "@als/core";
import { buildApp } from "../../apps/server/src/app.ts";
import { createLogger } from "../../apps/server/src/logger.ts";
import { freshDatabase, testMode } from "./database.ts";
import { sharedEmbedder } from "./embedder.ts";

export interface TestResponse<T = any> {
  status: number;
  body: T;
}

/**
 * The real server application over a fresh database and the real embedding model, called through
 * `app.handle` with real Request objects. `clock` moves the service's notion of now.
 */
export async function startTestService() {
  const { db, drop } = await freshDatabase();
  const clock = { now: Math.floor(Date.now() / 1000) };
  const deps: CoreDeps = { db, embedder: await sharedEmbedder(), now: () => clock.now };
  const app = buildApp({ deps, log: createLogger("error"), mode: testMode });

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

  return { app, deps, db, clock, call, close: drop };
}

export type TestService = Awaited<ReturnType<typeof startTestService>>;
