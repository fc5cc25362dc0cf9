import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TINY_CROSS_ENCODER_DIR } from "../../../test/support/tiny-cross-encoder.ts";

const MAIN = new URL("../src/main.ts", import.meta.url).pathname;
const ROOT = new URL("../../../", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "als-startup-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function startServer(env: Record<string, string>) {
  return Bun.spawn(["bun", MAIN], { cwd: ROOT, env: { PATH: process.env.PATH ?? "", ...env }, stdout: "pipe", stderr: "pipe" });
}

async function waitForHealth(url: string, deadlineMs: number): Promise<Response> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fetch(`${url}/health`);
    } catch (error) {
      if (Date.now() > until) throw error;
      await Bun.sleep(100);
    }
  }
}

describe("the server process", () => {
  test("starts in embedded mode with no configuration but a port, and serves real HTTP", async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    // A data directory that does not exist yet, as on a fresh checkout.
    const server = startServer({ PORT: String(port), DATA_DIR: join(dataDir, "fresh", "nested"), RERANK_MODEL_DIR: TINY_CROSS_ENCODER_DIR });
    try {
      const url = `http://127.0.0.1:${port}`;
      const health = await waitForHealth(url, 30_000);
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
