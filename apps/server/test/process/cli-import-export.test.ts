import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@als/client";
import { organizations } from "@als/db";
import { createApiKey, createOrganization } from "@als/identity";
import { until } from "@als/test-support/server-process.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// scripts/als import and export as their own processes against the real service over HTTP (hosted
// mode, two organisations): they open no database, so the service runs throughout. The import is
// SIGKILLed midway and run again; every interaction is then stored exactly once.

const ROOT = new URL("../../../../", import.meta.url).pathname;
const CLI = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const PASSWORD = "correct horse battery staple";

interface Org {
  email: string;
  key: string;
}

let svc: TestService;
let url: string;
let dir: string;
let alpha: Org;
let beta: Org;

async function organisation(name: string): Promise<Org> {
  const email = `owner@${name}.example`;
  const { orgId } = await createOrganization(svc.deps, { name, ownerEmail: email, ownerPassword: PASSWORD, emailVerified: true });
  await organizations.setGovernanceEntitlement(svc.deps.db, orgId, true);
  const { value } = await createApiKey(svc.deps, orgId, { projectId: "default", name: "import", access: "full", createdBy: null });
  return { email, key: value };
}

beforeAll(async () => {
  svc = await startTestService({ authMode: "required" });
  svc.app.listen({ hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${svc.app.server!.port}`;
  dir = mkdtempSync(join(tmpdir(), "als-import-"));
  alpha = await organisation("alpha");
  beta = await organisation("beta");
});
afterAll(async () => {
  await svc.app.stop(true);
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

function spawnCli(args: string[], stdin?: string, env: Record<string, string> = {}) {
  return Bun.spawn(["bun", CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function als(args: string[], stdin?: string, env?: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnCli(args, stdin, env);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** Every stored interaction of the organisation whose key this is, through the API. */
async function storedContents(key: string): Promise<string[]> {
  const { interactions } = await createClient({ baseUrl: url, apiKey: key }).interactions.getAll({ limit: 10_000 });
  return interactions.map((interaction) => interaction.content);
}

const turn = (user: string, content: string) => JSON.stringify({ user_id: user, session_id: `${user}-s1`, role: "User", content });

describe("scripts/als import", () => {
  test("an import SIGKILLed midway and run again stores every interaction exactly once", async () => {
    // 200 interactions of 10 users, interleaved as a log in time order, and one peer-format session line.
    const lines: string[] = [];
    for (let index = 0; index < 200; index++) lines.push(turn(`user-${index % 10}`, `resume turn ${index}`));
    lines.push(
      JSON.stringify({ user_id: "peer", session_id: "p1", interactions: [{ role: "User", content: "resume turn 200" }, { content: "resume turn 201" }] }),
    );
    const file = join(dir, "resume.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const args = ["import", file, "--url", url, "--api-key", alpha.key, "--batch-size", "10", "--concurrency", "4"];

    const first = spawnCli(args);
    const checkpoint = `${file}.als-checkpoint`;
    // Killed once a quarter of the batches were answered, while others are under way.
    await until(async () => (existsSync(checkpoint) && (readFileSync(checkpoint, "utf8").match(/"done"/g)?.length ?? 0) >= 5 ? true : undefined), 10_000);
    first.kill("SIGKILL");
    await first.exited;
    const partial = await storedContents(alpha.key);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.length).toBeLessThan(202);

    const resumed = await als([...args, "--json"]);
    expect(resumed.code).toBe(0);
    const summary = JSON.parse(resumed.stdout);
    expect(summary).toMatchObject({ interactions: 202, published: 202, refused: [] });
    expect(summary.published_now).toBeLessThan(202);
    // Progress went to stderr as plain lines (no terminal): done/total, rate and ETA.
    expect(resumed.stderr).toMatch(/import +100% 202\/202 interactions · \d+\/s · ETA/);

    const stored = await storedContents(alpha.key);
    expect(stored.length).toBe(202);
    expect(new Set(stored).size).toBe(202);

    // A third run finds nothing left and publishes nothing.
    const again = JSON.parse((await als([...args, "--json"])).stdout);
    expect(again).toMatchObject({ published: 202, published_now: 0 });
    expect((await storedContents(alpha.key)).length).toBe(202);
  }, 30_000);

  test("bad lines are refused with their line numbers and the API's message, and nothing else is lost", async () => {
    const lines = Array.from({ length: 30 }, (_, index) => turn("bad-lines", `kept turn ${index + 1}`));
    lines[4] = "{not json";
    lines[11] = JSON.stringify({ user_id: "bad-lines", session_id: "bad-lines-s1", role: "User", content: "clicked", user_action: "click" });
    lines[19] = JSON.stringify({ user_id: "bad-lines", session_id: "   ", role: "User", content: "no session" });
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const run = await als(["import", file, "--url", url, "--api-key", beta.key, "--batch-size", "50", "--json"]);
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout);
    expect(summary.refused.map((refusal: { line: number }) => refusal.line)).toEqual([5, 12, 20]);
    expect(summary.refused[0].message).toStartWith("not JSON");
    expect(summary.refused[1].message).toContain("422 validation_error: interaction_data_list[0].user_action_description");
    expect(summary.refused[2].message).toContain("session_id");
    expect(summary.published).toBe(27);
    const stored = await storedContents(beta.key);
    const expected = lines.map((_, index) => `kept turn ${index + 1}`).filter((_, index) => ![4, 11, 19].includes(index));
    expect(stored.sort()).toEqual(expected.sort());
  }, 20_000);

  test("a wrong key (from SERVICE_API_KEY) stops the import with the API's answer and publishes nothing", async () => {
    const file = join(dir, "unauthorised.jsonl");
    writeFileSync(file, `${turn("nobody", "never stored")}\n`);
    const run = await als(["import", file, "--url", url], undefined, { SERVICE_API_KEY: "als_notakey0_notakey" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("401 unauthorized");
    expect(run.stderr).toContain("run the same command again to resume");
  }, 15_000);
});

describe("scripts/als export", () => {
  test("the file holds what the API's export of the user holds", async () => {
    const out = join(dir, "user-3.export.json");
    const run = await als(["export", "--user", "user-3", "--out", out, "--url", url, "--email", alpha.email, "--password-stdin", "--json"], `${PASSWORD}\n`);
    expect(run.code).toBe(0);
    const written = JSON.parse(readFileSync(out, "utf8"));
    expect(JSON.parse(run.stdout)).toMatchObject({ path: out, rows: expect.any(Number) });
    expect(run.stderr).toMatch(/export +100% \d+\/\d+ rows/);
    expect(existsSync(`${out}.partial`)).toBe(false);

    const session = await createClient({ baseUrl: url }).account.login({ email: alpha.email, password: PASSWORD });
    const governance = await createClient({ baseUrl: url, apiKey: session.token }).account.createGovernanceSession({ password: PASSWORD });
    const direct = await svc.call(
      "POST",
      "/api/governance/export-user",
      { user_id: "user-3", request_id: "direct" },
      { authorization: `Bearer ${governance.token}` },
    );
    expect(direct.status).toBe(200);
    expect(written.interactions).toHaveLength(20);
    const { exported_at: _w, ...writtenRest } = written;
    const { exported_at: _d, ...directRest } = direct.body;
    expect(writtenRest).toEqual(directRest);
  }, 20_000);

  test("another organisation's admin exports nothing of the user, and its key reads nothing", async () => {
    const out = join(dir, "user-3.beta.json");
    const run = await als(["export", "--user", "user-3", "--out", out, "--url", url, "--email", beta.email, "--password-stdin", "--json"], `${PASSWORD}\n`);
    expect(run.code).toBe(0);
    const written = JSON.parse(readFileSync(out, "utf8"));
    expect(Object.values(written.counts as Record<string, number>).every((count) => count === 0)).toBe(true);
    expect(written.interactions).toEqual([]);
    const read = await createClient({ baseUrl: url, apiKey: beta.key }).interactions.get({ user_id: "user-3", top_k: 100 });
    expect(read.interactions).toEqual([]);
  }, 15_000);

  test("a wrong password is refused at log-in and writes no file", async () => {
    const out = join(dir, "refused.json");
    const run = await als(["export", "--user", "user-3", "--out", out, "--url", url, "--email", alpha.email, "--password-stdin"], "wrong password!\n");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("logging in with --email: 401");
    expect(existsSync(out)).toBe(false);
  }, 15_000);
});
