/**
 * What overload leaves held: the real server process (apps/server/src/main.ts, as scripts/serve
 * runs it) is started in embedded mode (PGlite in a fresh temporary directory) and in full mode
 * (a new PostgreSQL database, Temporal at TEMPORAL_ADDRESS on a task queue of its own), seeded, then
 * hit by waves of concurrent searches with long distinct queries (every one an embedding-cache
 * miss), alternating POST /api/search, /api/search_profiles and /api/search_user_playbooks. Its
 * resident memory (VmRSS of /proc/<pid>/status, sampled every 50 ms) is printed at the baseline,
 * at each wave's peak and end, after an idle pause and after a forced full collection (the preload
 * bench/lib/memory-probe.ts runs one on SIGUSR2 and reports the service thread's JSC heap). Then
 * one add_user_profile of `--long-profiles` profiles as long as the queries (documents, embedded in
 * tasks of 32 texts), and the memory after it.
 *
 *   bun bench/overload-memory.ts [--modes embedded,full] [--waves 5] [--requests 200] [--query-chars 8000]
 *     [--rows 300] [--idle-ms 3000] [--long-profiles 64] [--env KEY=VALUE ...] [--smaps] [--postgres-url …] [--temporal-address …]
 *
 * `--env` passes settings to the server (an A/B of a setting); `--smaps` adds the mappings whose
 * resident size grew most between the baseline and the end. Progress goes to stderr, the report to stdout.
 */
import { execSync, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { hostFacts, loadAverage } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import { longQuery, overloadSeedRequests } from "./lib/overload-corpus.ts";
import type { StorageMode } from "./lib/seed.ts";
import { markdownTable, ms, percentile } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const SEARCHES = ["/api/search", "/api/search_profiles", "/api/search_user_playbooks"] as const;
const SAMPLE_EVERY_MS = 50;
const START_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    modes: { type: "string", default: "embedded,full" },
    waves: { type: "string", default: "5" },
    requests: { type: "string", default: "200" },
    "query-chars": { type: "string", default: "8000" },
    rows: { type: "string", default: "300" },
    "idle-ms": { type: "string", default: "3000" },
    "long-profiles": { type: "string", default: "64" },
    env: { type: "string", multiple: true, default: [] },
    smaps: { type: "boolean", default: false },
    "postgres-url": { type: "string" },
    "temporal-address": { type: "string" },
  },
  strict: true,
});
const modes = storageModesOption(values.modes);
const opts = {
  waves: integerOption("waves", values.waves, 1),
  requests: integerOption("requests", values.requests, 1),
  queryChars: integerOption("query-chars", values["query-chars"], 1),
  rows: integerOption("rows", values.rows, 1),
  idleMs: integerOption("idle-ms", values["idle-ms"], 0),
  longProfiles: integerOption("long-profiles", values["long-profiles"], 0),
  env: Object.fromEntries(
    values.env.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new Error(`--env needs KEY=VALUE, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  ),
  postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT),
  temporalAddress: values["temporal-address"] ?? process.env.TEMPORAL_ADDRESS,
};
if (modes.includes("full") && !opts.temporalAddress) throw new Error("full mode needs --temporal-address or TEMPORAL_ADDRESS");

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
const mb = (bytes: number) => ms(bytes / 2 ** 20, 0);

function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** Resident bytes per mapping (`/proc/<pid>/smaps`), keyed by the mapping's name and size. */
function residentByMapping(pid: number): Map<string, number> {
  const byMapping = new Map<string, number>();
  let current = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const size = (Number.parseInt(header[2]!, 16) - Number.parseInt(header[1]!, 16)) / 2 ** 20;
      current = `${header[3] || "[anon]"} (${size >= 1 ? `${size.toFixed(0)} MB` : "<1 MB"} mapping)`;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) byMapping.set(current, (byMapping.get(current) ?? 0) + Number(rss[1]) * 1024);
  }
  return byMapping;
}

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = server;
  server.stop(true);
  return port;
}

interface HeapProbe {
  heapSize: number;
  heapCapacity: number;
  extraMemorySize: number;
  rss: number;
}

interface ModeResult {
  mode: StorageMode;
  memory: { label: string; rss: number; heap?: HeapProbe }[];
  statuses: Map<string, number[]>;
  grew: [string, number][];
  load: string;
}

async function runMode(mode: StorageMode): Promise<ModeResult> {
  const storage = await freshServiceStorage("overload_memory", mode, opts.postgresUrl);
  const probeDir = await mkdtemp(`${tmpdir()}/als-memory-probe-`);
  const probeFile = `${probeDir}/heap.jsonl`;
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn("bun", ["--preload", `${ROOT}/bench/lib/memory-probe.ts`, `${ROOT}/apps/server/src/main.ts`], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      ...storage.env,
      ...(mode === "full" && {
        TEMPORAL_ADDRESS: opts.temporalAddress,
        TEMPORAL_TASK_QUEUE: `bench-overload-memory-${crypto.randomUUID().slice(0, 8)}`,
      }),
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "error",
      // As scripts/serve runs the service (apps/server/src/main.ts says why).
      BUN_GC_TIMER_DISABLE: "1",
      EMBEDDING_MODEL_DIR: defaultModelDir(ROOT),
      MEMORY_PROBE_FILE: probeFile,
      ...opts.env,
    },
  });
  const pid = server.pid!;
  const exited = new Promise<number | null>((resolve) => server.once("exit", resolve));
  let probes = 0;
  /** A forced full collection in the server, and its heap afterwards. */
  const collect = async (): Promise<HeapProbe> => {
    probes++;
    process.kill(pid, "SIGUSR2");
    const giveUpAt = performance.now() + 10_000;
    while (performance.now() < giveUpAt) {
      const lines = (await readFile(probeFile, "utf8").catch(() => "")).trim().split("\n").filter(Boolean);
      if (lines.length >= probes) return JSON.parse(lines[probes - 1]!) as HeapProbe;
      await Bun.sleep(50);
    }
    throw new Error("the server did not answer the memory probe within 10 s");
  };
  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    await response.arrayBuffer();
    return response.status;
  };
  try {
    const startedAt = performance.now();
    for (;;) {
      if (performance.now() - startedAt > START_TIMEOUT_MS) throw new Error(`the ${mode} server did not answer /health within ${START_TIMEOUT_MS} ms`);
      const healthy = await fetch(`${base}/health`)
        .then((response) => response.ok)
        .catch(() => false);
      if (healthy) break;
      if (server.exitCode !== null) throw new Error(`the ${mode} server exited with ${server.exitCode}`);
      await Bun.sleep(200);
    }
    progress(`${mode}: server ${pid} up; seeding ${opts.rows} profiles and ${opts.rows} user playbooks...`);
    for (const [path, body] of overloadSeedRequests(opts.rows)) {
      const status = await post(path, body);
      if (status !== 200) throw new Error(`seeding ${path} answered ${status}`);
    }
    // One long search of each kind, one at a time: what a served process holds before any overload.
    for (const [index, path] of SEARCHES.entries()) await post(path, { query: longQuery(1_000_000 + index, opts.queryChars), user_id: "ana", top_k: 5 });
    const memory: ModeResult["memory"] = [];
    const baselineHeap = await collect();
    memory.push({ label: "baseline (seeded, one search of each kind, collected)", rss: rssOf(pid), heap: baselineHeap });
    const smapsBefore = values.smaps ? residentByMapping(pid) : undefined;

    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(pid));
    }, SAMPLE_EVERY_MS);
    const statuses = new Map<string, number[]>();
    try {
      for (let wave = 1; wave <= opts.waves; wave++) {
        progress(`${mode}: wave ${wave} of ${opts.requests} concurrent ${opts.queryChars}-character searches...`);
        peak = rssOf(pid);
        const offset = (wave - 1) * opts.requests;
        await Promise.all(
          Array.from({ length: opts.requests }, async (_, index) => {
            const path = SEARCHES[index % SEARCHES.length]!;
            const sentAt = performance.now();
            const status = await post(path, { query: longQuery(offset + index, opts.queryChars), user_id: "ana", top_k: 5 });
            const key = `${path} ${status}`;
            statuses.set(key, [...(statuses.get(key) ?? []), performance.now() - sentAt]);
          }),
        );
        peak = Math.max(peak, rssOf(pid));
        memory.push({ label: `wave ${wave}: peak`, rss: peak });
        memory.push({ label: `wave ${wave}: answered`, rss: rssOf(pid) });
      }
    } finally {
      clearInterval(sampler);
    }
    await Bun.sleep(opts.idleMs);
    memory.push({ label: `after the waves, ${opts.idleMs / 1000} s idle`, rss: rssOf(pid) });
    const afterHeap = await collect();
    memory.push({ label: "after the waves, collected", rss: rssOf(pid), heap: afterHeap });
    if (opts.longProfiles > 0) {
      progress(`${mode}: adding ${opts.longProfiles} profiles of ${opts.queryChars} characters in one request...`);
      peak = rssOf(pid);
      const sampling = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, SAMPLE_EVERY_MS);
      const profiles = Array.from({ length: opts.longProfiles }, (_, index) => ({ user_id: "bo", content: longQuery(2_000_000 + index, opts.queryChars) }));
      const status = await post("/api/add_user_profile", { user_profiles: profiles }).finally(() => clearInterval(sampling));
      if (status !== 200) throw new Error(`adding long profiles answered ${status}`);
      memory.push({ label: `${opts.longProfiles} long profiles added: peak`, rss: Math.max(peak, rssOf(pid)) });
      await collect();
      memory.push({ label: `${opts.longProfiles} long profiles added, collected`, rss: rssOf(pid) });
    }
    const grew: [string, number][] = [];
    if (smapsBefore) {
      for (const [mapping, bytes] of residentByMapping(pid)) grew.push([mapping, bytes - (smapsBefore.get(mapping) ?? 0)]);
      grew.sort((a, b) => b[1] - a[1]);
    }
    return { mode, memory, statuses, grew: grew.slice(0, 8), load: loadAverage() };
  } finally {
    server.kill("SIGTERM");
    const stopped = await Promise.race([exited, Bun.sleep(15_000).then(() => "timeout" as const)]);
    if (stopped === "timeout") {
      server.kill("SIGKILL");
      await exited;
    }
    await storage.drop();
    await rm(probeDir, { recursive: true, force: true });
  }
}

const commit = execSync("git rev-parse --short HEAD", { cwd: ROOT }).toString().trim();
const loadAtStart = loadAverage();
const results: ModeResult[] = [];
for (const mode of modes) results.push(await runMode(mode));

const settingsNote =
  Object.keys(opts.env).length === 0
    ? ""
    : `, ${Object.entries(opts.env)
        .map(([key, value]) => `${key}=${value}`)
        .join(" ")}`;
console.log(
  `## Memory under overload: ${opts.waves} waves of ${opts.requests} concurrent ${opts.queryChars}-character searches${settingsNote} (${new Date().toISOString().slice(0, 10)}, commit ${commit})\n`,
);
const labels = results[0]!.memory.map((entry) => entry.label);
console.log(
  markdownTable(
    ["resident memory (MB)", ...results.map((result) => result.mode)],
    labels.map((label, row) => [label, ...results.map((result) => mb(result.memory[row]!.rss))]),
  ),
);
console.log(
  `\n${markdownTable(
    ["service thread's JSC heap after a full collection (MB)", ...results.flatMap((result) => [`${result.mode} baseline`, `${result.mode} after`])],
    (["heapSize", "heapCapacity", "extraMemorySize"] as const).map((field) => [
      field,
      ...results.flatMap((result) => result.memory.filter((entry) => entry.heap).map((entry) => mb(entry.heap![field]))),
    ]),
  )}`,
);
const answerRows = results.flatMap((result) =>
  [...result.statuses]
    .sort()
    .map(([key, latencies]) => [result.mode, key, String(latencies.length), ms(percentile(latencies, 50)), ms(Math.max(...latencies))]),
);
console.log(`\n${markdownTable(["mode", "answers", "count", "p50 ms", "max ms"], answerRows)}`);
for (const result of results) {
  if (result.grew.length === 0) continue;
  console.log(
    `\n${markdownTable(
      [`${result.mode}: mappings that grew most, baseline to end`, "MB"],
      result.grew.map(([mapping, bytes]) => [mapping, mb(bytes)]),
    )}`,
  );
}
console.log(`\n- corpus ${opts.rows} profiles + ${opts.rows} user playbooks of one user; RSS sampled every ${SAMPLE_EVERY_MS} ms`);
for (const fact of hostFacts()) console.log(`- ${fact}`);
console.log(`- load average at start: ${loadAtStart}; after each mode: ${results.map((result) => `${result.mode} ${result.load}`).join(", ")}`);
