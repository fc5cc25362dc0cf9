import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "@als/test-support/server-process.ts";
import postgres from "postgres";
import { BOUNDS, type ChaosService, startChaosService } from "./chaos-service.ts";

// Full mode only: the test database lives in a tablespace on a small tmpfs that the test fills.
const serverUrl = process.env.TEST_DATABASE_URL;
const fullMode = process.env.TEST_MODE === "full" && serverUrl !== undefined;

/** A 48 MB tmpfs the PostgreSQL server may write to, or why there cannot be one here. */
function mountSmallDisk(): { dir: string; unmount: () => void } | { refused: string } {
  if (!fullMode) return { refused: "full mode only" };
  if (process.getuid?.() !== 0) return { refused: "mounting a tmpfs needs root" };
  const dir = mkdtempSync(join(tmpdir(), "als-full-disk-"));
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=48m,mode=0755", "tmpfs", dir], { stderr: "pipe" });
  if (mount.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { refused: `this environment refuses the mount: ${mount.stderr.toString().trim()}` };
  }
  const postgresUser = Bun.spawnSync(["id", "-u", "postgres"]);
  const postgresGroup = Bun.spawnSync(["id", "-g", "postgres"]);
  const tablespace = join(dir, "tablespace");
  Bun.spawnSync(["mkdir", "-m", "0700", tablespace]);
  chownSync(tablespace, Number(postgresUser.stdout.toString()), Number(postgresGroup.stdout.toString()));
  return {
    dir,
    unmount() {
      Bun.spawnSync(["umount", dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const disk = mountSmallDisk();
if ("refused" in disk && fullMode) console.warn(`disk-full chaos test skipped: ${disk.refused}`);

describe.skipIf("refused" in disk)("a full disk under a real server", () => {
  const mounted = disk as { dir: string; unmount: () => void };
  const name = `chaos_disk_${crypto.randomUUID().replaceAll("-", "")}`;
  const filler = join(mounted.dir, "filler");
  let server: postgres.Sql;
  let svc: ChaosService;

  beforeAll(async () => {
    server = postgres(serverUrl!, { max: 1, onnotice: () => {} });
    await server.unsafe(`CREATE TABLESPACE ${name} LOCATION '${join(mounted.dir, "tablespace")}'`);
    await server.unsafe(`CREATE DATABASE ${name} TABLESPACE ${name}`);
    const url = new URL(serverUrl!);
    url.pathname = `/${name}`;
    svc = await startChaosService({ databaseUrl: url.toString(), worker: false });
  }, 120_000);

  afterAll(async () => {
    rmSync(filler, { force: true });
    await svc?.close();
    await server?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await server?.unsafe(`DROP TABLESPACE IF EXISTS ${name}`);
    await server?.end();
    mounted.unmount();
  });

  test("a disk that fills up answers 503 naming storage (53100) to writes and to /health, and all recovers once there is room", async () => {
    expect((await svc.publish("disk", "while there is room")).status).toBe(200);
    expect((await svc.health()).status).toBe(200);
    // Fill what is left of the tmpfs.
    const block = new Uint8Array(1024 * 1024);
    try {
      for (;;) appendFileSync(filler, block);
    } catch (error) {
      expect((error as { code?: string }).code).toBe("ENOSPC");
    }
    // Words that do not compress, so the content needs new pages (TOAST) where there is no room.
    const bulky = Array.from({ length: 40_000 }, () => Math.random().toString(36).slice(2, 8)).join(" ");
    const refused = await svc.publish("disk", bulky);
    expect([refused.status, refused.body.error, refused.body.component]).toEqual([503, "storage_unavailable", "storage"]);
    expect(refused.ms).toBeLessThan(BOUNDS.publishMs);
    const health = await svc.health();
    expect([health.status, health.body.error]).toEqual([503, "storage_unavailable"]);
    expect(health.ms).toBeLessThan(BOUNDS.healthMs);
    expect(svc.alive()).toBe(true);

    rmSync(filler);
    await until(async () => ((await svc.publish("disk", bulky)).status === 200 ? true : undefined), 15_000);
    expect((await svc.health()).status).toBe(200);
    expect(svc.alive()).toBe(true);
  }, 60_000);
});
