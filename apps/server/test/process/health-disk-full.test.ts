import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomPort, spawnServer, stopProcess, until } from "@als/test-support/server-process.ts";
import type { Subprocess } from "bun";

// The embedded server's data directory on a small filesystem of its own (a tmpfs, mounted here: the
// tests run as root): filled by another file until less than the threshold is free, /health answers
// 503 disk_full, though PGlite's own probe still succeeds (it rewrites a row in space it holds);
// once space is freed, 200 again. Run in both test modes: the embedded server is the one checked.

const MIN_FREE_MB = 64;
const mountPoint = mkdtempSync(join(tmpdir(), "als-disk-full-"));
const filler = join(mountPoint, "filler");
const port = randomPort();
let server: Subprocess | undefined;

beforeAll(() => {
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=320m", "tmpfs", mountPoint]);
  if (mounted.exitCode !== 0) throw new Error(`cannot mount a tmpfs at ${mountPoint}: ${mounted.stderr.toString()}`);
});
afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) await stopProcess(server, "SIGTERM");
  Bun.spawnSync(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const health = async () => {
  const response = await fetch(`http://127.0.0.1:${port}/health`);
  return { status: response.status, body: (await response.json()) as any };
};
const freeBytes = () => {
  const { bavail, bsize } = statfsSync(mountPoint);
  return bavail * bsize;
};

test("/health answers 503 disk_full when the data directory's filesystem is nearly full, 200 once space is freed", async () => {
  server = spawnServer(port, { DATA_DIR: join(mountPoint, "data"), SERVICE_HEALTH_MIN_FREE_DISK_MB: String(MIN_FREE_MB) });
  const ok = await until(async () => {
    const answer = await health().catch(() => undefined);
    return answer?.status === 200 ? answer : undefined;
  }, 180_000);
  expect(ok.body.status).toBe("ok");
  expect(freeBytes()).toBeGreaterThan(MIN_FREE_MB * 1024 * 1024);

  // Leave half the threshold free.
  const fill = freeBytes() - (MIN_FREE_MB / 2) * 1024 * 1024;
  const allocated = Bun.spawnSync(["fallocate", "-l", String(fill), filler]);
  expect(allocated.exitCode).toBe(0);
  const full = await health();
  expect(full.status).toBe(503);
  expect(full.body).toMatchObject({ error: "storage_unavailable", reason: "disk_full" });
  expect(JSON.stringify(full.body)).not.toContain(mountPoint);

  rmSync(filler);
  expect((await health()).status).toBe(200);
}, 180_000);
