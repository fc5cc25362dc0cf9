import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testMode } from "@als/test-support/database.ts";
import { type Deployment, startableDeployment } from "@als/test-support/deployment.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";

// Onboarding progress is the database's: a server killed while members refresh and update the run
// comes back with the run as last saved, and the walkthrough goes on from there.

const ROOT = new URL("../../../../", import.meta.url).pathname;
const CLI = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const PASSWORD = "correct horse battery";

let storageEnv: Record<string, string>;
let removeStorage: () => Promise<void>;
let deployment: Deployment;
let apiKey: string;
let token: string;

beforeAll(async () => {
  if (testMode === "embedded") {
    const dataDir = mkdtempSync(join(tmpdir(), "als-onboarding-restart-"));
    storageEnv = { DATA_DIR: dataDir };
    removeStorage = async () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    const fresh = await createFreshDatabase(process.env.TEST_DATABASE_URL!);
    storageEnv = { DATABASE_URL: fresh.url };
    removeStorage = fresh.drop;
  }
  // The organisation, its owner's password and an API key, made by the operator CLI before the server starts.
  const cli = Bun.spawn(["bun", CLI, "org", "create", "--name", "Restart", "--owner-email", "owner@restart.example", "--owner-password-stdin", "--json"], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...storageEnv },
    stdin: new Blob([`${PASSWORD}\n`]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(cli.stdout).text(), new Response(cli.stderr).text(), cli.exited]);
  if (code !== 0) throw new Error(`als org create exited with ${code}: ${stderr}`);
  apiKey = JSON.parse(stdout).api_key.value;
  deployment = await startableDeployment("onboarding-restart", storageEnv);
  await deployment.start();
  const login = await deployment.post("/api/account/login", { email: "owner@restart.example", password: PASSWORD });
  expect(login.status).toBe(200);
  token = login.body.token;
});
afterAll(async () => {
  await deployment?.close();
  await removeStorage();
});

async function call(method: string, path: string, body?: object, credential = token) {
  const response = await fetch(`${deployment.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${credential}`, ...(body && { "content-type": "application/json" }) },
    ...(body && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const BASE = "/api/projects/default/onboarding";

describe("onboarding across a kill", () => {
  test("a server killed while the run is refreshed and updated comes back with the run as saved", async () => {
    const initialized = await call("POST", `${BASE}/initialize`);
    expect(initialized.status).toBe(200);
    const run = initialized.body.run;
    const published = await call(
      "POST",
      "/api/publish_interaction",
      { user_id: run.user_id, session_id: run.session_id, source: run.source, interaction_data_list: [{ role: "User", content: "I am vegan" }] },
      apiKey,
    );
    expect(published.status).toBe(200);
    // Refreshes and an update in flight when every process is killed: each saved whole or not at all.
    const inFlight = Promise.allSettled([
      call("POST", `${BASE}/refresh`),
      call("PATCH", BASE, { run_id: run.run_id, action: "defer_experiment" }),
      call("POST", `${BASE}/refresh`),
    ]);
    await deployment.kill();
    await inFlight;
    await deployment.start();

    const after = await call("GET", BASE);
    expect(after.status).toBe(200);
    expect(after.body.run.run_id).toBe(run.run_id);
    expect(after.body.run.revision).toBeGreaterThanOrEqual(run.revision);
    const refreshed = await call("POST", `${BASE}/refresh`);
    expect(refreshed.body.run.publish_request_ids).toEqual([published.body.request_id]);
    expect(refreshed.body.steps.find((step: { id: string }) => step.id === "publish_conversation").complete).toBe(true);
    const deferred = await call("PATCH", BASE, { run_id: run.run_id, action: "defer_experiment" });
    expect(deferred.status).toBe(200);
    expect(deferred.body.run.milestones.experiment_deferred).toBeNumber();
    expect(deferred.body.run.revision).toBe(refreshed.body.run.revision + 1);
  });
});
