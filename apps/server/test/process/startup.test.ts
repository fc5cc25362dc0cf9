import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomPort } from "@als/test-support/server-process.ts";
import { TINY_CROSS_ENCODER_DIR } from "@als/test-support/tiny-cross-encoder.ts";

const MAIN = new URL("../../src/main.ts", import.meta.url).pathname;
const ROOT = new URL("../../../../", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "als-startup-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function startServer(env: Record<string, string>) {
  return Bun.spawn(["bun", MAIN], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
}

/**
 * The server's /health once it answers. A server that exits first, or is still not listening at the
 * deadline (killed then), fails the test with its exit code and what it wrote to stderr.
 */
async function waitForHealth(server: ReturnType<typeof startServer>, url: string, deadlineMs: number): Promise<Response> {
  const until = Date.now() + deadlineMs;
  let exited = false;
  void server.exited.then(() => {
    exited = true;
  });
  for (;;) {
    try {
      return await fetch(`${url}/health`);
    } catch {
      if (exited || Date.now() > until) {
        server.kill("SIGKILL");
        const code = await server.exited;
        throw new Error(
          `the server ${exited ? `exited with ${code}` : `was not listening after ${deadlineMs} ms`}; its stderr:\n${await new Response(server.stderr).text()}`,
        );
      }
      await Bun.sleep(100);
    }
  }
}

describe("the server process", () => {
  test("starts in embedded mode with no configuration but a port, and serves real HTTP", async () => {
    const port = randomPort();
    // A data directory that does not exist yet, as on a fresh checkout.
    const server = startServer({ PORT: String(port), DATA_DIR: join(dataDir, "fresh", "nested"), RERANK_MODEL_DIR: TINY_CROSS_ENCODER_DIR });
    const url = `http://127.0.0.1:${port}`;
    // Under CI's load (both server suites starting at once) a fresh start has taken over 15 s.
    const health = await waitForHealth(server, url, 45_000);
    try {
      expect(await health.json()).toMatchObject({ status: "ok", mode: "embedded", storage: "pglite" });
      const post = (path: string, body: unknown) =>
        fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as any);
      await post("/api/add_user_profile", { user_profiles: [{ user_id: "zoe", content: "Zoe is allergic to cats" }] });
      const found = await post("/api/search_profiles", { user_id: "zoe", query: "feline allergy", search_mode: "vector" });
      expect(found.user_profiles[0].content).toBe("Zoe is allergic to cats");
      const reranked = await post("/api/rerank_user_profiles", { user_id: "zoe", query: "allergic to cats", profile_ids: [found.user_profiles[0].profile_id] });
      expect(reranked.user_profiles[0].content).toBe("Zoe is allergic to cats");
    } finally {
      server.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    }
    // Below the mapping limit operators are asked to set, the start says so (docs/operations.md).
    const warned = (await new Response(server.stderr).text()).includes("vm.max_map_count is");
    expect(warned).toBe(Number(readFileSync("/proc/sys/vm/max_map_count", "utf8")) < 262_144);
  });

  test("refuses a port another process listens on, naming it, and leaves that process its connections", async () => {
    // Listening as Elysia does by default (SO_REUSEPORT), which would let a second such listener share the port.
    const holder = Bun.serve({ hostname: "127.0.0.1", port: randomPort(), reusePort: true, fetch: () => new Response("the other process") });
    try {
      const server = startServer({ PORT: String(holder.port), DATA_DIR: join(dataDir, "port-taken"), RERANK_MODEL_DIR: TINY_CROSS_ENCODER_DIR });
      const stillRunning = setTimeout(() => server.kill("SIGKILL"), 45_000);
      expect(await server.exited).toBe(1);
      clearTimeout(stillRunning);
      const stderr = await new Response(server.stderr).text();
      expect(stderr).toContain(`cannot start: cannot listen on 127.0.0.1:${holder.port}`);
      for (let i = 0; i < 4; i++) expect(await (await fetch(`http://127.0.0.1:${holder.port}/health`)).text()).toBe("the other process");
    } finally {
      holder.stop(true);
    }
  });

  test("refuses a data directory PGlite cannot open, naming it and the file-system error", async () => {
    // PGlite does not follow a symbolic link in place of its directory.
    const dir = join(dataDir, "linked");
    mkdirSync(join(dataDir, "elsewhere"), { recursive: true });
    mkdirSync(dir);
    symlinkSync(join(dataDir, "elsewhere"), join(dir, "pglite"));
    const server = startServer({ PORT: "0", DATA_DIR: dir });
    expect(await server.exited).toBe(1);
    const stderr = await new Response(server.stderr).text();
    expect(stderr).toContain(`cannot start: PGlite cannot open its data directory ${join(dir, "pglite")}: ENOENT`);
    expect(stderr).not.toContain("[object Object]");
  });

  test("refuses to start without a loadable embedding model, saying what to do", async () => {
    const server = startServer({ PORT: "0", DATA_DIR: dataDir, EMBEDDING_MODEL_DIR: join(dataDir, "no-model-here") });
    expect(await server.exited).not.toBe(0);
    const stderr = await new Response(server.stderr).text();
    expect(stderr).toContain("cannot start");
    expect(stderr).toContain("install-model.sh");
  });

  test("refuses to start with invalid configuration, naming the variable", async () => {
    const server = startServer({ PORT: "not-a-port", DATA_DIR: dataDir });
    expect(await server.exited).not.toBe(0);
    expect(await new Response(server.stderr).text()).toContain("PORT");
  });
});
