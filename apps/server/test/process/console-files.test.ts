import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureConsoleBuilt } from "@als/test-support/console-build.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { serveConsoleFile } from "../../src/http/console-files.ts";

// The operator console's built files as the server serves them at /console, in either mode; the
// console's pages themselves are tested in a browser (apps/console/test).

let svc: TestService;
beforeAll(async () => {
  ensureConsoleBuilt();
  svc = await startTestService({ authMode: "required" });
});
afterAll(() => svc.close());

const get = (path: string) => svc.app.handle(new Request(`http://localhost${path}`));

describe("the console at /console", () => {
  test("the page needs no credential, is never cached, and carries a strict content security policy", async () => {
    const page = await get("/console/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("no-cache");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1];
    expect(script).toBeDefined();
    const asset = await get(script!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toContain("immutable");
  });

  test("the bare path redirects to the page; unknown files and paths out of the build are 404", async () => {
    const bare = await get("/console");
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/console/");
    expect((await get("/console/assets/nothing.js")).status).toBe(404);
    for (const path of ["/console/..%2f..%2fpackage.json", "/console/%2e%2e/%2e%2e/server/package.json", "/console/%E0%A4%A"]) {
      const answer = await get(path);
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { error: string }).error).toBe("not_found");
    }
  });

  test("without a build the console answers 404 saying how to build it", async () => {
    const empty = mkdtempSync(join(tmpdir(), "console-dist-"));
    try {
      const answer = await serveConsoleFile(empty, "/console/");
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { detail: string }).detail).toContain("scripts/build-console");
    } finally {
      rmSync(empty, { recursive: true });
    }
  });
});
