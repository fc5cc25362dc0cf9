/**
 * POST /api/governance/export-user of one user holding many interactions: the real service
 * (settings, composition root, the local model) served by app.listen on 127.0.0.1 and read over
 * HTTP as a stream, over PGlite (embedded) and PostgreSQL (full). Reports the time to the first and
 * the last byte, the bundle's size, and the process's peak memory above its level before the export
 * (RSS and JS heap sampled every 10 ms): the export streams page by page, so memory should not grow
 * with the user's data. The client counts bytes and keeps nothing.
 *
 *   bun bench/export-user.ts [--modes embedded,full] [--interactions 100000] [--per-request 10]
 *     [--postgres-url <server; default: TEST_DATABASE_URL, DATABASE_URL, else bash infra/postgres.sh url>]
 *
 * The interactions are written with one INSERT ... SELECT (about 300 characters each, no vectors:
 * an export leaves embeddings out), so seeding does not wait on the embedding model. Every mode
 * starts from an empty database, dropped at the end. Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { loadSettings } from "@als/core";
import { organizations } from "@als/db";
import { createOrganization, openSession } from "@als/identity";
import { buildApp } from "../apps/server/src/app.ts";
import { composeService } from "../apps/server/src/compose.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { hostFacts, loadAverage, packageVersion } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import type { StorageMode } from "./lib/seed.ts";
import { markdownTable, ms } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const MODEL_DIR = defaultModelDir(ROOT);
const SUBJECT = "export-bench-user";
const MB = 1024 * 1024;

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      modes: { type: "string", default: "embedded,full" },
      interactions: { type: "string", default: "100000" },
      "per-request": { type: "string", default: "10" },
      "postgres-url": { type: "string" },
    },
    strict: true,
  });
  const modes = storageModesOption(values.modes);
  return {
    modes,
    interactions: integerOption("interactions", values.interactions, 1),
    perRequest: integerOption("per-request", values["per-request"], 1),
    postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT),
  };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

interface ModeResult {
  mode: StorageMode;
  seedMs: number;
  firstByteMs: number;
  lastByteMs: number;
  bytes: number;
  exportedInteractions: number;
  rssBeforeMb: number;
  rssPeakGrowthMb: number;
  heapPeakGrowthMb: number;
  location: string;
}

async function runMode(mode: StorageMode, opts: ReturnType<typeof options>): Promise<ModeResult> {
  const storage = await freshServiceStorage("export_user", mode, opts.postgresUrl);
  const settings = loadSettings({ ...storage.env, EMBEDDING_MODEL_DIR: MODEL_DIR, LOG_LEVEL: "error" });
  const log = createLogger("error");
  const service = await composeService(settings, log);
  const { deps } = service;
  const app = buildApp({ deps, log, mode: service.mode, backstopMs: settings.backstopMs, authMode: settings.identity.authMode });
  app.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const { orgId, owner } = await createOrganization(deps, { name: "bench", ownerEmail: "owner@bench.example", ownerPassword: null, emailVerified: true });
    await organizations.setGovernanceEntitlement(deps.db, orgId, true);
    const { token } = await openSession(deps, owner, "governance");

    progress(`${mode}: seeding ${opts.interactions} interactions of one user (${opts.perRequest} per request)...`);
    const seedStarted = performance.now();
    const requests = Math.ceil(opts.interactions / opts.perRequest);
    await deps.db.query(
      `INSERT INTO requests (org_id, project_id, request_id, user_id, session_id, first_seq, last_seq, created_at)
       SELECT $1, 'default', 'req-' || r, $2, 'session-' || (r / 20), (r - 1) * $3 + 1, r * $3, 1700000000 + r FROM generate_series(1, $4) AS r`,
      [orgId, SUBJECT, opts.perRequest, requests],
    );
    await deps.db.query(
      `INSERT INTO interactions (org_id, project_id, user_id, request_id, session_id, seq, created_at, role, content)
       SELECT $1, 'default', $2, 'req-' || ((i - 1) / $3 + 1), 'session-' || (((i - 1) / $3 + 1) / 20), i, 1700000000 + i,
              CASE WHEN i % 2 = 0 THEN 'Agent' ELSE 'User' END, repeat('message ' || i || ' about the weekly report; ', 8)
         FROM generate_series(1, $4) AS i`,
      [orgId, SUBJECT, opts.perRequest, opts.interactions],
    );
    const seedMs = performance.now() - seedStarted;

    Bun.gc(true);
    const before = process.memoryUsage();
    let rssPeak = before.rss;
    let heapPeak = before.heapUsed;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      rssPeak = Math.max(rssPeak, now.rss);
      heapPeak = Math.max(heapPeak, now.heapUsed);
    }, 10);
    progress(`${mode}: exporting...`);
    const started = performance.now();
    const response = await fetch(`http://127.0.0.1:${app.server!.port}/api/governance/export-user`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ user_id: SUBJECT, request_id: "bench-export" }),
    });
    if (response.status !== 200) throw new Error(`export answered ${response.status}: ${await response.text()}`);
    let firstByteMs = 0;
    let bytes = 0;
    let interactionsSeen = 0;
    const decoder = new TextDecoder();
    for await (const chunk of response.body!) {
      if (bytes === 0) firstByteMs = performance.now() - started;
      bytes += chunk.byteLength;
      // Each exported interaction row carries its interaction_id once.
      interactionsSeen += decoder.decode(chunk, { stream: true }).split('"interaction_id":').length - 1;
    }
    const lastByteMs = performance.now() - started;
    clearInterval(sampler);
    return {
      mode,
      seedMs,
      firstByteMs,
      lastByteMs,
      bytes,
      exportedInteractions: interactionsSeen,
      rssBeforeMb: before.rss / MB,
      rssPeakGrowthMb: (rssPeak - before.rss) / MB,
      heapPeakGrowthMb: (heapPeak - before.heapUsed) / MB,
      location: storage.location,
    };
  } finally {
    await app.stop();
    await service.close();
    await storage.drop();
  }
}

async function main() {
  const opts = options();
  const loadAtStart = loadAverage();
  const results: ModeResult[] = [];
  for (const mode of opts.modes) results.push(await runMode(mode, opts));
  console.log(`## POST /api/governance/export-user of one user with ${opts.interactions} interactions\n`);
  console.log(
    markdownTable(
      ["mode", "interactions exported", "bundle MB", "first byte ms", "last byte s", "MB/s", "RSS before MB", "RSS peak growth MB", "heap peak growth MB"],
      results.map((r) => [
        r.mode,
        String(r.exportedInteractions),
        (r.bytes / MB).toFixed(1),
        ms(r.firstByteMs),
        (r.lastByteMs / 1000).toFixed(2),
        (r.bytes / MB / (r.lastByteMs / 1000)).toFixed(1),
        r.rssBeforeMb.toFixed(0),
        r.rssPeakGrowthMb.toFixed(1),
        r.heapPeakGrowthMb.toFixed(1),
      ]),
    ),
  );
  console.log("");
  for (const r of results) console.log(`- ${r.mode}: ${r.location}; seeding took ${(r.seedMs / 1000).toFixed(1)} s`);
  console.log(
    `- pages of 500 rows; the client reads the body as a stream and keeps nothing; memory sampled every 10 ms in the one process (server and client)`,
  );
  console.log(`- PGlite ${packageVersion("@electric-sql/pglite", `${ROOT}/packages/db`)}`);
  for (const fact of hostFacts()) console.log(`- ${fact}`);
  console.log(`- load average at start: ${loadAtStart}; at the end: ${loadAverage()}`);
}

await main();
