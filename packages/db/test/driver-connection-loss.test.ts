import { describe, expect, test } from "bun:test";
import postgres from "postgres";

const serverUrl = process.env.TEST_DATABASE_URL;
const FIXTURE = new URL("./fixtures/terminate-in-transaction.ts", import.meta.url).pathname;
const ROOT = new URL("../../../", import.meta.url).pathname;

/** Runs the fixture in its own process and returns its exit code and output. */
async function runFixture(runtime: "bun" | "node", how: "raw" | "driver") {
  const command = runtime === "bun" ? ["bun", FIXTURE, serverUrl!, how] : ["node", "--import", "tsx", FIXTURE, serverUrl!, how];
  const child = Bun.spawn(command, { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

// postgres.js 3.4.9 (the latest release) throws out of a setImmediate when a transaction's connection
// drops mid-statement (https://github.com/porsager/postgres/issues/1066, #1208; fix proposed in
// PRs #1168, #1209, unmerged). patches/postgres@3.4.9.patch settles the write instead.
describe.skipIf(!serverUrl)("a transaction whose backend is terminated mid-statement", () => {
  for (const runtime of ["bun", "node"] as const) {
    for (const how of ["raw", "driver"] as const) {
      test(`fails with a connection error and leaves the process alive (${runtime}, ${how === "raw" ? "postgres.js itself" : "our driver"})`, async () => {
        const { code, stdout, stderr } = await runFixture(runtime, how);
        // A crash of another shape than #1066's (seen once in CI: nothing printed) must say what it was.
        if (code !== 0) console.error(`terminate-in-transaction (${runtime}, ${how}) exited ${code}; its stderr:\n${stderr}`);
        expect(stderr).not.toContain("socket.write");
        expect(stdout).toContain("transaction: CONNECTION_CLOSED");
        expect(stdout).toContain("survived");
        expect(code).toBe(0);
      });
    }
  }
});

// Unpatched, postgres.js keeps the FATAL of a session terminated mid-statement and fails the first
// statement of the connection's next session with it ("terminating connection due to administrator
// command"), so every terminated connection costs one more failed request after recovery.
describe.skipIf(!serverUrl)("the session after a terminated one", () => {
  test("answers its first statement", async () => {
    const admin = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    const sql = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    try {
      for (let round = 0; round < 2; round++) {
        const [{ pid }] = (await sql`SELECT pg_backend_pid() AS pid`) as unknown as [{ pid: number }];
        const sleeping = sql`SELECT pg_sleep(3)`.then(
          () => "answered",
          (error: { code?: string }) => error.code,
        );
        await Bun.sleep(200);
        await admin`SELECT pg_terminate_backend(${pid})`;
        expect(await sleeping).toBe("CONNECTION_CLOSED");
        expect([...(await sql`SELECT 1 AS one`)]).toEqual([{ one: 1 }]);
      }
    } finally {
      await sql.end({ timeout: 1 });
      await admin.end();
    }
  });
});
