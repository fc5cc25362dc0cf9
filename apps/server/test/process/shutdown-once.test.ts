import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomPort, untilHealthy } from "@als/test-support/server-process.ts";

// A supervisor and the process group may both deliver SIGTERM (scripts/serve forwards the signal
// that the terminal also sent to the group): the server shuts down once, exits 0, and logs no
// failure, a storage one after its database closed included. The embedded server is the one
// checked, in both test modes.

const dataDir = mkdtempSync(join(tmpdir(), "als-shutdown-once-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test("SIGTERM delivered twice while requests are in flight shuts the server down once, with nothing logged as failed", async () => {
  const port = randomPort();
  const url = `http://127.0.0.1:${port}`;
  const server = Bun.spawn(["bun", "apps/server/src/main.ts"], {
    cwd: new URL("../../../../", import.meta.url).pathname,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: "info" },
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    await untilHealthy(url);
    // Publishes and reads under way when the signals arrive.
    const traffic = Array.from({ length: 20 }, (_, i) =>
      fetch(`${url}/api/publish_interaction`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_id: `user-${i}`, interaction_data_list: [{ role: "User", content: `message ${i}` }] }),
      }).catch(() => undefined),
    );
    await Bun.sleep(20);
    server.kill("SIGTERM");
    server.kill("SIGTERM");
    await Promise.all(traffic);
    const exitCode = await server.exited;
    const logs = `${await new Response(server.stdout).text()}${await new Response(server.stderr).text()}`;
    const errors = logs.split("\n").filter((line) => line.includes('"level":"error"') || line.includes("PGlite is closed"));
    expect({ exitCode, errors }).toEqual({ exitCode: 0, errors: [] });
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
}, 240_000);

test("SIGTERM while the server is still starting ends it at once, with exit code 0", async () => {
  const server = Bun.spawn(["bun", "apps/server/src/main.ts"], {
    cwd: new URL("../../../../", import.meta.url).pathname,
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(randomPort()),
      DATA_DIR: mkdtempSync(join(dataDir, "starting-")),
      LOG_LEVEL: "error",
      BUN_GC_TIMER_DISABLE: "1",
    },
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    // The service thread is loading its modules: nothing listens yet.
    await Bun.sleep(300);
    server.kill("SIGTERM");
    const exited = await Promise.race([server.exited, Bun.sleep(20_000).then(() => "still running")]);
    expect({ exited, signal: server.signalCode, stderr: await new Response(server.stderr).text() }).toEqual({ exited: 0, signal: null, stderr: "" });
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
}, 60_000);
