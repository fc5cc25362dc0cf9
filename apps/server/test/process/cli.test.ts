import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CoreDeps, createProcessServices, systemClock } from "@als/core";
import { type Database, members, openDatabase, organizations, type StorageOptions } from "@als/db";
import { verifyPassword } from "@als/identity";
import { sharedComputePool } from "@als/test-support/compute.ts";
import { testMode } from "@als/test-support/database.ts";
import { sharedEmbedder } from "@als/test-support/embedder.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { sharedProcessActivity } from "@als/test-support/process-activity.ts";
import { randomPort, spawnServer, stopProcess, untilHealthy } from "@als/test-support/server-process.ts";
import { buildApp } from "../../src/app.ts";
import { createLogger } from "../../src/logger.ts";

const ROOT = new URL("../../../../", import.meta.url).pathname;
const CLI = new URL("../../src/cli/main.ts", import.meta.url).pathname;

/** Where the CLI's database is: DATA_DIR (embedded) or DATABASE_URL (full); PORT is where it looks for a running server. */
let cliEnv: Record<string, string>;
let storage: StorageOptions;
let cleanUp: () => Promise<void>;

beforeAll(async () => {
  // Nothing listens on this port: the embedded guard lets the CLI open the database.
  const port = String(randomPort());
  if (testMode === "embedded") {
    const dataDir = mkdtempSync(join(tmpdir(), "als-cli-"));
    cliEnv = { DATA_DIR: dataDir, PORT: port };
    storage = { kind: "pglite", dataDir: join(dataDir, "pglite") };
    cleanUp = async () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    const serverUrl = process.env.TEST_DATABASE_URL;
    if (!serverUrl) throw new Error("TEST_MODE=full needs TEST_DATABASE_URL");
    const fresh = await createFreshDatabase(serverUrl);
    cliEnv = { DATABASE_URL: fresh.url, PORT: port };
    storage = { kind: "postgres", url: fresh.url };
    cleanUp = fresh.drop;
  }
});
afterAll(() => cleanUp());

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real CLI as its own process, configured by the environment only, as an operator runs it. */
async function als(args: string[], options: { stdin?: string; env?: Record<string, string>; command?: string[] } = {}): Promise<CliRun> {
  const child = Bun.spawn([...(options.command ?? ["bun", CLI]), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...(options.env ?? cliEnv) },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

async function alsJson(args: string[], stdin?: string): Promise<any> {
  const run = await als([...args, "--json"], stdin === undefined ? {} : { stdin });
  if (run.code !== 0) throw new Error(`als ${args.join(" ")} exited with ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout);
}

/**
 * The same database opened by this process while no CLI runs (PGlite takes one process at a
 * time), closed again before the next CLI call.
 */
async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(storage);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** GET /api/whoami of a hosted server (AUTH_MODE=required) built over the CLI's database. */
async function whoami(token: string, project?: string): Promise<{ status: number; body: any }> {
  return withDatabase(async (db) => {
    const deps: CoreDeps = {
      db,
      services: createProcessServices(db, sharedProcessActivity()),
      embedder: await sharedEmbedder(),
      compute: sharedComputePool(),
      now: systemClock,
      storage,
    };
    const app = buildApp({ deps, log: createLogger("error"), mode: testMode, strictResponses: true, authMode: "required" });
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...(project && { "x-service-project": project }) };
    const response = await app.handle(new Request("http://localhost/api/whoami", { headers }));
    return { status: response.status, body: await response.json() };
  });
}

describe("als org create", () => {
  test("creates the organisation, its owner and a full key that a hosted server accepts", async () => {
    const run = await als(["org", "create", "--name", "Acme", "--owner-email", "Ops@Acme.example"]);
    expect(run.code).toBe(0);
    const orgId = /^org_id\s+(\S+)$/m.exec(run.stdout)![1]!;
    const ownerId = /^owner\s+(mem_\S+) ops@acme\.example/m.exec(run.stdout)![1]!;
    const key = /^api_key\s+(als_\S+)$/m.exec(run.stdout)![1]!;
    expect(run.stderr).toContain("shown this once");
    expect(run.stderr).not.toContain(key);

    const served = await whoami(key);
    expect(served).toEqual({ status: 200, body: expect.objectContaining({ org_id: orgId }) });
    await withDatabase(async (db) => {
      const owner = await members.findMember(db, ownerId);
      expect(owner).toMatchObject({ org_id: orgId, role: "owner", email: "ops@acme.example", email_verified_at: expect.any(Number) });
      // Without --owner-password-stdin the owner signs in through OpenID Connect only.
      expect((await members.findMemberCredentials(db, "ops@acme.example"))!.password_hash).toBeNull();
      expect(await organizations.listProjects(db, orgId)).toEqual([expect.objectContaining({ project_id: "default" })]);
    });
  });

  test("--owner-password-stdin gives the owner that password; --json prints one object", async () => {
    const created = await alsJson(
      ["org", "create", "--name", "Beta", "--owner-email", "owner@beta.example", "--owner-password-stdin"],
      "correct horse battery\n",
    );
    expect(created).toMatchObject({ org_id: expect.stringMatching(/^org_/), owner_sign_in: "password", project_id: "default" });
    expect(created.api_key).toMatchObject({ value: expect.stringMatching(/^als_/), access: "full", project_id: "default" });
    const hash = await withDatabase(async (db) => (await members.findMemberCredentials(db, "owner@beta.example"))!.password_hash);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
  });

  test("an address that already has a login exits 1 naming --owner-email, and creates nothing", async () => {
    const run = await als(["org", "create", "--name", "Twice", "--owner-email", "OPS@acme.example"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("--owner-email");
    expect(run.stdout).toBe("");
    const count = await withDatabase((db) => db.query<{ n: number }>("SELECT count(*)::int AS n FROM organizations WHERE name = 'Twice'"));
    expect(count[0]!.n).toBe(0);
  });
});

describe("als key", () => {
  let orgId: string;
  beforeAll(async () => {
    orgId = (await alsJson(["org", "create", "--name", "Keys", "--owner-email", "owner@keys.example"])).org_id;
  });

  test("list shows each key's prefix, name, project and access, never its value; last use shows once used", async () => {
    const created = await alsJson(["key", "create", "--org", orgId, "--name", "ci agent", "--access", "limited"]);
    const { value, prefix } = created.api_key;
    expect(value.startsWith(`${prefix}_`)).toBe(true);
    expect((await whoami(value)).status).toBe(200);

    const table = await als(["key", "list", "--org", orgId]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(new RegExp(`^${prefix}\\s+ci agent\\s+default\\s+limited\\s+\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+\\d{4}-`, "m"));
    expect(table.stdout).toMatch(/^als_\S+\s+first key\s+default\s+full\s+\S+\s+never$/m);
    expect(table.stdout).not.toContain(value);
    const listed = await alsJson(["key", "list", "--org", orgId]);
    expect(listed.api_keys.map((key: any) => key.prefix)).toContain(prefix);
    expect(JSON.stringify(listed)).not.toContain(value);
    expect(listed.api_keys.find((key: any) => key.prefix === prefix)).toEqual({
      key_id: expect.any(String),
      prefix,
      name: "ci agent",
      project_id: "default",
      access: "limited",
      created_at: expect.any(Number),
      last_used_at: expect.any(Number),
      created_by: null,
    });
  });

  test("revoke makes the key answer 401 and drops it from the list", async () => {
    const { value, prefix } = (await alsJson(["key", "create", "--org", orgId])).api_key;
    expect((await whoami(value)).status).toBe(200);
    const run = await als(["key", "revoke", "--org", orgId, "--prefix", prefix]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`revoked ${prefix}`);
    expect((await whoami(value)).status).toBe(401);
    expect((await alsJson(["key", "list", "--org", orgId])).api_keys.map((key: any) => key.prefix)).not.toContain(prefix);

    const again = await als(["key", "revoke", "--org", orgId, "--prefix", prefix]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`--prefix: organisation ${orgId} has no live API key ${prefix}`);
  });

  test("a key made for another project reaches that project and no other", async () => {
    expect(await alsJson(["project", "create", "--org", orgId, "--project", "staging", "--name", "Staging"])).toEqual({
      org_id: orgId,
      project_id: "staging",
      name: "Staging",
    });
    const { value } = (await alsJson(["key", "create", "--org", orgId, "--project", "staging"])).api_key;
    expect((await whoami(value, "staging")).status).toBe(200);
    expect((await whoami(value, "default")).status).toBe(403);

    const duplicate = await als(["project", "create", "--org", orgId, "--project", "staging"]);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain("--project");
    const missing = await als(["key", "create", "--org", orgId, "--project", "nowhere"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--project: organisation");
  });
});

describe("als governance", () => {
  test("grant and revoke flip the organisation's entitlement", async () => {
    const orgId = (await alsJson(["org", "create", "--name", "Gov", "--owner-email", "owner@gov.example"])).org_id;
    const entitled = () => withDatabase(async (db) => (await organizations.findOrganization(db, orgId))!.governance_entitled);
    expect(await entitled()).toBe(false);
    expect(await alsJson(["governance", "grant", "--org", orgId])).toEqual({ org_id: orgId, governance_entitled: true });
    expect(await entitled()).toBe(true);
    const revoked = await als(["governance", "revoke", "--org", orgId]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^governance_entitled\s+false$/m);
    expect(await entitled()).toBe(false);
  });
});

describe("failures exit 1 with a message naming what is wrong", () => {
  test("an unknown organisation, on every command that names one", async () => {
    for (const args of [
      ["key", "list", "--org", "org_nope"],
      ["key", "create", "--org", "org_nope"],
      ["key", "revoke", "--org", "org_nope", "--prefix", "als_12345678"],
      ["governance", "grant", "--org", "org_nope"],
      ["project", "create", "--org", "org_nope", "--project", "p1"],
    ]) {
      const run = await als(args);
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.stderr).toContain("--org: there is no organisation org_nope");
      expect(run.stdout).toBe("");
    }
  });

  test("bad arguments are refused before the database is opened", async () => {
    const cases: [string[], string, string?][] = [
      [["org", "create", "--name", "X"], "--owner-email is required"],
      [["org", "create", "--name", "X", "--owner-email", "not-an-address"], "--owner-email: 'not-an-address' is not an email address"],
      [["org", "create", "--nmae", "X"], "Unknown option '--nmae'"],
      [["org", "create", "--name", " ", "--owner-email", "a@b.example"], "--name must not be empty"],
      [["org", "create", "--name", "X", "--owner-email", "a@b.example", "--owner-password-stdin"], "--owner-password-stdin", "short\n"],
      [["key", "create", "--org", "org_x", "--access", "admin"], "--access must be full or limited, not 'admin'"],
      [["key", "revoke", "--org", "org_x", "--prefix", "abc"], "--prefix must be a key prefix"],
      [["key", "list"], "--org is required"],
      [["key", "list", "--org", "org_x", "extra"], "Unexpected argument 'extra'"],
      [["project", "create", "--org", "org_x", "--project", "No Spaces"], "--project must be"],
      [["key", "rotate"], "unknown command 'key rotate'"],
      [["frobnicate"], "unknown command 'frobnicate'"],
    ];
    for (const [args, message, stdin] of cases) {
      const run = await als(args, stdin === undefined ? {} : { stdin });
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 1, stderr: expect.stringContaining(message) });
      expect(run.stderr).not.toContain("opening");
      expect(run.stdout).toBe("");
    }
  });

  test("invalid configuration names the variable", async () => {
    const run = await als(["key", "list", "--org", "org_x"], { env: { ...cliEnv, DATABASE_CONNECT_TIMEOUT_MS: "soon" } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("DATABASE_CONNECT_TIMEOUT_MS");
  });
});

describe("help", () => {
  test("scripts/als --help lists the commands on stdout and explains the embedded-mode rule", async () => {
    const run = await als(["--help"], { command: [join(ROOT, "scripts/als")] });
    expect(run.code).toBe(0);
    for (const command of ["org create", "key create", "key list", "key revoke", "governance grant", "governance revoke", "project create"]) {
      expect(run.stdout).toContain(command);
    }
    expect(run.stdout).toContain("stop the embedded server");
  });

  test("a command's --help names its options and opens nothing", async () => {
    const run = await als(["key", "create", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("--access full|limited");
    expect(run.stderr).toBe("");
  });
});

describe.skipIf(testMode !== "embedded")("a running embedded server", () => {
  test("makes the CLI refuse to open its PGlite directory until it has stopped", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "als-cli-guard-"));
    const port = randomPort();
    const env = { DATA_DIR: dataDir, PORT: String(port) };
    const server = spawnServer(port, env);
    try {
      await untilHealthy(`http://127.0.0.1:${port}`);
      const refused = await als(["org", "create", "--name", "Guarded", "--owner-email", "owner@guarded.example"], { env });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`a server answers at http://127.0.0.1:${port}`);
      expect(refused.stderr).toContain("stop it first");
      expect(refused.stderr).not.toContain("opening");
      await stopProcess(server, "SIGTERM");
      const accepted = await als(["org", "create", "--name", "Guarded", "--owner-email", "owner@guarded.example"], { env });
      expect(accepted.code).toBe(0);
    } finally {
      server.kill("SIGKILL");
      await server.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
