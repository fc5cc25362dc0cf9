import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { workerCommand } from "./worker-bundle.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const SERVER_MAIN = new URL("../../apps/server/src/main.ts", import.meta.url).pathname;

/**
 * A free port for a server process of this test run, kept across its restarts. It lies below
 * Linux's ephemeral range (32768 and up), where the kernel picks the local ports of outgoing
 * connections: a port drawn from that range was once taken by one of them while its server was down
 * for a restart, and the server could not start again ("Is port 37530 in use?"). Each candidate is
 * bound once to check that nothing holds it now, and claimed (claimPort) so that no other test
 * process draws it while its server is still starting: the suites run side by side, and an
 * embedded server binds its port only seconds after it was drawn. A test once took another suite's
 * server, started meanwhile on the same port, for its own.
 */
export function randomPort(): number {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!claimPort(port)) continue;
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
      return port;
    } catch {
      // Taken: draw another.
    }
  }
}

/** Where the ports drawn by test processes are claimed, one empty file a port. */
const PORT_CLAIMS = join(tmpdir(), "als-test-ports");
/** A claim this old is released: no test's server lives that long. */
const CLAIM_MS = 15 * 60 * 1000;

/** Whether this process may take `port`: no test process has drawn it within CLAIM_MS. */
function claimPort(port: number): boolean {
  mkdirSync(PORT_CLAIMS, { recursive: true });
  const claim = join(PORT_CLAIMS, String(port));
  try {
    writeFileSync(claim, "", { flag: "wx" });
    return true;
  } catch {
    // Claimed already: taken over once the claim is old.
    const claimed = statSync(claim, { throwIfNoEntry: false });
    if (claimed && Date.now() - claimed.mtimeMs < CLAIM_MS) return false;
    writeFileSync(claim, "");
    return true;
  }
}

/**
 * The API server as its own process, configured by `env` only, so a test can kill it outright. Its
 * log (stderr) is the test's own, or a stream the test reads with `log: "pipe"`. Bun's collection
 * timer is off, as scripts/serve runs the service (apps/server/src/main.ts says why).
 */
export function spawnServer(port: number, env: Record<string, string>, { log = "inherit" }: { log?: "inherit" | "pipe" } = {}) {
  return Bun.spawn(["bun", SERVER_MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), LOG_LEVEL: "error", BUN_GC_TIMER_DISABLE: "1", ...env },
    stdout: "ignore",
    stderr: log,
  });
}

/** A full-mode worker as its own process (on Node, as in production), configured by `env` only. */
export function spawnWorker(env: Record<string, string>): Subprocess {
  return Bun.spawn(workerCommand(), {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "error", ...env },
    stdout: "ignore",
    stderr: "inherit",
  });
}

/** Sends `signal` and waits for the process to exit. */
export async function stopProcess(process: Subprocess, signal: NodeJS.Signals): Promise<void> {
  process.kill(signal);
  await process.exited;
}

/**
 * Waits until the server at `url` answers GET /health with 200. A server on a fresh data directory
 * is up in a few seconds on an idle machine; the bound is for a machine busy with other suites.
 */
export function untilHealthy(url: string, deadlineMs = 120_000): Promise<true> {
  return until(async () => ((await fetch(`${url}/health`).catch(() => undefined))?.ok ? true : undefined), deadlineMs);
}

/** Polls `probe` until it returns a value (errors count as not yet) or the deadline passes. */
export async function until<T>(probe: () => Promise<T | undefined>, deadlineMs: number): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      if (Date.now() > end) throw error;
    }
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(100);
  }
}
