import { describe, expect, test } from "bun:test";

const FIXTURE = new URL("./fixtures/stray-failures.ts", import.meta.url).pathname;
const ROOT = new URL("../../../", import.meta.url).pathname;

describe("guardProcessAgainstStorageFailures", () => {
  for (const runtime of ["bun", "node"] as const) {
    test(`keeps the process serving through stray storage failures and ends it on any other fault (${runtime})`, async () => {
      const command = runtime === "bun" ? ["bun", FIXTURE] : ["node", "--import", "tsx", FIXTURE];
      const child = Bun.spawn(command, { cwd: ROOT, env: { PATH: process.env.PATH ?? "" }, stdout: "pipe", stderr: "pipe" });
      const [code, stdout] = await Promise.all([child.exited, new Response(child.stdout).text()]);
      expect(stdout).toContain("logged: storage failure outside any request (uncaughtException); still serving");
      expect(stdout).toContain("logged: storage failure outside any request (unhandledRejection); still serving");
      expect(stdout).toContain("still serving");
      expect(stdout).toContain("logged: uncaughtException; exiting");
      expect(stdout).not.toContain("should not get here");
      expect(code).toBe(1);
    });
  }
});
