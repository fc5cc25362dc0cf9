import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { members, organizations } from "@als/db";
import { hashPassword } from "@als/identity";
import { startTestService, type TestService } from "@als/test-support/service.ts";

// On a local server (AUTH_MODE=local): scripts/als import needs no key (the local organisation), and
// export goes through a member of the local organisation with a password, once it holds governance.

const ROOT = new URL("../../../../", import.meta.url).pathname;
const CLI = new URL("../../src/cli/main.ts", import.meta.url).pathname;
const PASSWORD = "correct horse battery staple";
const EMAIL = "admin@local.example";

let svc: TestService;
let url: string;
let dir: string;

beforeAll(async () => {
  svc = await startTestService();
  svc.app.listen({ hostname: "127.0.0.1", port: 0 });
  url = `http://127.0.0.1:${svc.app.server!.port}`;
  dir = mkdtempSync(join(tmpdir(), "als-import-local-"));
  const now = svc.deps.now();
  const member = { member_id: "mem_local_admin", org_id: "local", email: EMAIL, role: "admin" as const, email_verified_at: now, invited: true };
  await members.insertMember(svc.deps.db, { ...member, password_hash: await hashPassword(PASSWORD) }, now);
  await organizations.setGovernanceEntitlement(svc.deps.db, "local", true);
});
afterAll(async () => {
  await svc.app.stop(true);
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

async function als(args: string[], stdin?: string) {
  const child = Bun.spawn(["bun", CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "" },
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

test("on a local server, import needs no key and a member of the local organisation exports what it stored", async () => {
  const file = join(dir, "local.jsonl");
  const lines = Array.from({ length: 12 }, (_, index) => JSON.stringify({ user_id: "ana", session_id: "s1", role: "User", content: `local turn ${index}` }));
  writeFileSync(file, `${lines.join("\n")}\n`);
  const imported = await als(["import", file, "--url", url, "--json"]);
  expect(imported.code).toBe(0);
  expect(JSON.parse(imported.stdout)).toMatchObject({ published: 12, refused: [] });

  const out = join(dir, "ana.json");
  const exported = await als(["export", "--user", "ana", "--out", out, "--url", url, "--email", EMAIL, "--password-stdin"], `${PASSWORD}\n`);
  expect(exported.code).toBe(0);
  const bundle = JSON.parse(readFileSync(out, "utf8"));
  expect(bundle.interactions.map((row: { content: string }) => row.content).sort()).toEqual(lines.map((_, index) => `local turn ${index}`).sort());
}, 20_000);
