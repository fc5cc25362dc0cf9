/**
 * The cost of authentication on POST /api/search: the real service (settings, composition root, the
 * local model) served by app.listen on 127.0.0.1 and asked over HTTP, over PGlite (embedded) and
 * PostgreSQL (full), with ~1k profiles. AUTH_MODE=local, so the same server answers a request
 * without a credential (the local organisation) and one with a full-access API key of that same
 * organisation and project: both search the same rows, and the difference is what the key costs
 * (hashing it, looking it up, the last-use touch, the rate limiter, the search evidence row).
 * The two kinds of request alternate (ABBA), on a few query texts whose embeddings were cached
 * during the warm-up, so the embedding model does not drown the difference.
 *
 *   bun bench/search-auth.ts [--modes embedded,full] [--profiles 1000] [--requests 500] [--warmup 50]
 *     [--queries 50] [--postgres-url <server; default: TEST_DATABASE_URL, DATABASE_URL, else bash infra/postgres.sh url>]
 *
 * Every mode starts from an empty database (a temporary PGlite directory, or a new PostgreSQL
 * database bench_search_auth_<hex>), dropped at the end. Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { loadSettings } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { createApiKey } from "@als/identity";
import { buildApp } from "../apps/server/src/app.ts";
import { composeService } from "../apps/server/src/compose.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { profileTexts, queryTexts } from "./lib/corpus.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { hostFacts, loadAverage, packageVersion } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import type { StorageMode } from "./lib/seed.ts";
import { markdownTable, mean, ms, percentile } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const MODEL_DIR = defaultModelDir(ROOT);
const PROFILES_PER_USER = 100;
/** Far above what one client at a time sends: the limiter still runs on every keyed request, it never refuses one. */
const UNTHROTTLED = { perSecond: 1_000_000, burst: 1_000_000 };

function options() {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      modes: { type: "string", default: "embedded,full" },
      profiles: { type: "string", default: "1000" },
      requests: { type: "string", default: "500" },
      warmup: { type: "string", default: "50" },
      queries: { type: "string", default: "50" },
      "postgres-url": { type: "string" },
    },
    strict: true,
  });
  const modes = storageModesOption(values.modes);
  return {
    modes,
    profiles: integerOption("profiles", values.profiles, PROFILES_PER_USER),
    requests: integerOption("requests", values.requests, 1),
    warmup: integerOption("warmup", values.warmup, 0),
    queries: integerOption("queries", values.queries, 1),
    postgresUrl: postgresUrlOption(values["postgres-url"], modes, ROOT),
  };
}

const progress = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

type Credential = "none" | "key";

interface ModeResult {
  mode: StorageMode;
  samples: Record<Credential, number[]>;
  errors: Record<Credential, Map<number, number>>;
  /** Mean profiles per answer, per credential: both must search the same rows. */
  served: Record<Credential, number>;
  evidenceRows: number;
  location: string;
}

async function runMode(mode: StorageMode, opts: ReturnType<typeof options>): Promise<ModeResult> {
  const storage = await freshServiceStorage("search_auth", mode, opts.postgresUrl);
  const settings = loadSettings({ ...storage.env, EMBEDDING_MODEL_DIR: MODEL_DIR, LOG_LEVEL: "error", AUTH_MODE: "local" });
  const log = createLogger("error");
  const service = await composeService(settings, log);
  const rateLimits = { search: UNTHROTTLED, publish: UNTHROTTLED, write: UNTHROTTLED, read: UNTHROTTLED, sign_in: UNTHROTTLED };
  const app = buildApp({ deps: service.deps, log, mode: service.mode, backstopMs: settings.backstopMs, authMode: settings.identity.authMode, rateLimits });
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${app.server!.port}`;
  try {
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const startedAt = performance.now();
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      const answer = (await response.json()) as any;
      return { status: response.status, ms: performance.now() - startedAt, answer };
    };

    const users = opts.profiles / PROFILES_PER_USER;
    progress(`${mode}: seeding ${opts.profiles} profiles for ${users} users...`);
    const texts = profileTexts(opts.profiles);
    for (let start = 0; start < texts.length; start += PROFILES_PER_USER) {
      const userId = `user-${start / PROFILES_PER_USER}`;
      const seeded = await post("/api/add_user_profile", {
        user_profiles: texts.slice(start, start + PROFILES_PER_USER).map((content) => ({ user_id: userId, content })),
      });
      if (seeded.status !== 200) throw new Error(`seeding answered ${seeded.status}: ${JSON.stringify(seeded.answer)}`);
    }
    // The local organisation's own key: the keyed request searches exactly the rows the unauthenticated one does.
    const { value: key } = await createApiKey(service.deps, LOCAL_SCOPE.orgId, {
      projectId: LOCAL_SCOPE.projectId,
      name: "bench",
      access: "full",
      createdBy: null,
    });
    const headersOf = (credential: Credential): Record<string, string> => (credential === "key" ? { authorization: `Bearer ${key}` } : {});

    const queries = queryTexts(opts.queries, 0x5eed_a0a0, new Set());
    const search = (credential: Credential, index: number) =>
      post("/api/search", { query: queries[index % queries.length], user_id: `user-${index % users}`, top_k: 5 }, headersOf(credential));

    progress(`${mode}: warming up (${opts.warmup} searches each; every query text embedded once)...`);
    for (let index = 0; index < Math.max(opts.warmup, opts.queries); index++) {
      for (const credential of ["none", "key"] as const) {
        const answer = await search(credential, index);
        if (answer.status !== 200) throw new Error(`warm-up search answered ${answer.status}: ${JSON.stringify(answer.answer)}`);
      }
    }
    const [before] = await service.deps.db.query<{ n: number }>("SELECT count(*)::int AS n FROM search_evidence");

    progress(`${mode}: ${opts.requests} searches without a credential and ${opts.requests} with the key, alternating...`);
    const samples: ModeResult["samples"] = { none: [], key: [] };
    const errors: ModeResult["errors"] = { none: new Map(), key: new Map() };
    const servedTotals = { none: 0, key: 0 };
    for (let index = 0; index < opts.requests; index++) {
      // ABBA: neither kind always runs right after the other, so a warm cache or a pending write favours neither.
      const order: Credential[] = index % 2 === 0 ? ["none", "key"] : ["key", "none"];
      for (const credential of order) {
        const answer = await search(credential, index);
        if (answer.status === 200) {
          samples[credential].push(answer.ms);
          servedTotals[credential] += answer.answer.profiles?.length ?? 0;
        } else {
          errors[credential].set(answer.status, (errors[credential].get(answer.status) ?? 0) + 1);
        }
      }
    }
    const [after] = await service.deps.db.query<{ n: number }>("SELECT count(*)::int AS n FROM search_evidence");
    return {
      mode,
      samples,
      errors,
      served: { none: servedTotals.none / Math.max(1, samples.none.length), key: servedTotals.key / Math.max(1, samples.key.length) },
      evidenceRows: after!.n - before!.n,
      location: storage.location,
    };
  } finally {
    await app.stop();
    await service.close();
    await storage.drop();
  }
}

const errorText = (errors: Map<number, number>) => (errors.size === 0 ? "0" : [...errors].map(([status, count]) => `${count}×${status}`).join(", "));

async function main() {
  const opts = options();
  const loadAtStart = loadAverage();
  progress(`modes ${opts.modes.join(",")}; ${opts.profiles} profiles; ${opts.requests} searches per credential`);
  const results: ModeResult[] = [];
  for (const mode of opts.modes) results.push(await runMode(mode, opts));

  const rows: string[][] = [];
  for (const result of results) {
    const stats = (samples: number[]) => [percentile(samples, 50), percentile(samples, 95), percentile(samples, 99), mean(samples)];
    const none = stats(result.samples.none);
    const key = stats(result.samples.key);
    rows.push([result.mode, "none (AUTH_MODE local)", String(result.samples.none.length), ...none.map((value) => ms(value)), errorText(result.errors.none)]);
    rows.push([result.mode, "full API key", String(result.samples.key.length), ...key.map((value) => ms(value)), errorText(result.errors.key)]);
    rows.push([result.mode, "difference", "", ...key.map((value, column) => `${value >= none[column]! ? "+" : ""}${ms(value - none[column]!)}`), ""]);
  }
  console.log(`## POST /api/search with and without an API key (${opts.profiles} profiles, ${opts.requests} searches each, alternating)\n`);
  console.log(markdownTable(["mode", "credential", "requests", "p50 ms", "p95 ms", "p99 ms", "mean ms", "errors"], rows));
  console.log("");
  for (const result of results) {
    console.log(
      `- ${result.mode}: ${result.location}; profiles per answer ${result.served.none.toFixed(2)} without a credential, ${result.served.key.toFixed(2)} with the key; search evidence rows written by the timed keyed searches: ${result.evidenceRows}`,
    );
  }
  console.log(
    `- each search: top_k 5, user_id one of ${opts.profiles / PROFILES_PER_USER} users of ${PROFILES_PER_USER} profiles, one of ${opts.queries} query texts embedded during the warm-up (cache hits when timed); one request at a time over HTTP/1.1 keep-alive`,
  );
  console.log(
    `- rate limits raised out of reach (the limiter still runs on every keyed request); PGlite ${packageVersion("@electric-sql/pglite", `${ROOT}/packages/db`)}`,
  );
  for (const fact of hostFacts()) console.log(`- ${fact}`);
  console.log(`- load average at start: ${loadAtStart}; at the end: ${loadAverage()}`);
}

await main();
