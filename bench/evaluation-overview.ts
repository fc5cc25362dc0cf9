/**
 * POST /api/get_evaluation_overview of the real app (buildApp, app.handle) over a project holding
 * 100k sessions and 1M interactions (ten per session), every session graded (agent success verdicts
 * with retrieved and cited learnings, sources over three sets), per-learning verdicts on a fifth of
 * the sessions and a shadow comparison on every agent turn that carries shadow content (a fifth).
 * Seeded in SQL (generate_series), so the rows are as the service stores them without an LLM.
 * Timed per window: 30 days by day buckets, 180 days and 366 days by week, each with source sets.
 *
 *   bun bench/evaluation-overview.ts [--sessions 100000] [--modes embedded,full] [--requests 30] [--postgres-url <server>]
 *
 * Every mode seeds a fresh database, dropped at the end. Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { createEmbedder } from "@als/ai";
import { ProjectConfig } from "@als/contract";
import { type CoreDeps, createProcessServices, ProcessActivity, systemClock } from "@als/core";
import { LOCAL_SCOPE, openDatabase, type StorageOptions } from "@als/db";
import { buildApp } from "../apps/server/src/app.ts";
import { createLogger } from "../apps/server/src/logger.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { hostFacts } from "./lib/machine.ts";
import { defaultModelDir } from "./lib/model-dir.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import { markdownTable, ms, percentile, seconds } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const DAY = 86_400;
/** Sessions start over the year before NOW, evenly. */
const NOW = 1_790_000_000;
const TURNS_PER_SESSION = 10;

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    sessions: { type: "string", default: "100000" },
    modes: { type: "string", default: "embedded,full" },
    requests: { type: "string", default: "30" },
    "postgres-url": { type: "string" },
  },
  strict: true,
});
const sessions = integerOption("sessions", values.sessions, 1);
const modes = storageModesOption(values.modes);
const requestCount = integerOption("requests", values.requests, 1);
const postgresUrl = postgresUrlOption(values["postgres-url"], modes, ROOT);
const progress = (message: string) => console.error(`[overview ${new Date().toISOString().slice(11, 19)}] ${message}`);

/**
 * The seed, one statement per table; $1 org, $2 project, then $3 sessions and $4 the year's start,
 * or (shadow comparisons) $3 the pinned shadow judge version.
 */
const SEED = [
  `INSERT INTO requests (org_id, project_id, request_id, user_id, session_id, source, agent_version, first_seq, last_seq, created_at)
   SELECT $1, $2, 'r' || s, 'u' || (s % 5000), 's' || s, (ARRAY['chat', 'email', ''])[1 + s % 3], 'v' || (1 + s % 2),
          (s / 5000) * ${TURNS_PER_SESSION} + 1, (s / 5000 + 1) * ${TURNS_PER_SESSION}, $4 + s * (365 * ${DAY} / $3)
   FROM generate_series(0, $3 - 1) AS s`,
  `INSERT INTO interactions (org_id, project_id, user_id, request_id, session_id, seq, created_at, role, content, shadow_content)
   SELECT $1, $2, 'u' || (s % 5000), 'r' || s, 's' || s, (s / 5000) * ${TURNS_PER_SESSION} + t + 1, $4 + s * (365 * ${DAY} / $3) + t * 30,
          CASE WHEN t % 2 = 0 THEN 'User' ELSE 'Agent' END, 'turn ' || t || ' of session ' || s,
          CASE WHEN t % 2 = 1 AND s % 5 = 0 THEN 'shadow answer ' || t ELSE '' END
   FROM generate_series(0, $3 - 1) AS s, generate_series(0, ${TURNS_PER_SESSION - 1}) AS t`,
  `INSERT INTO agent_success_evaluations (org_id, project_id, session_id, user_id, source, agent_version, origin, is_success, success_score,
     failure_type, number_of_correction_per_session, is_escalated, retrieved_learning_refs, cited_learning_refs,
     trajectory_interaction_count, judge_prompt, model, session_started_at, created_at)
   SELECT $1, $2, 's' || s, 'u' || (s % 5000), (ARRAY['chat', 'email', ''])[1 + s % 3], 'v' || (1 + s % 2), 'sampled', s % 10 < 7,
          ((s * 7919) % 1000) / 1000.0, CASE WHEN s % 10 < 7 THEN NULL ELSE 'wrong_answer' END, s % 3, s % 50 = 0,
          ARRAY['user_playbook:' || (s % 400), 'profile:p' || (s % 900)], CASE WHEN s % 4 = 0 THEN ARRAY['user_playbook:' || (s % 400)] ELSE '{}' END,
          ${TURNS_PER_SESSION}, 'agent-success-evaluation/v1', 'bench', $4 + s * (365 * ${DAY} / $3), $4 + s * (365 * ${DAY} / $3) + 900
   FROM generate_series(0, $3 - 1) AS s`,
  `INSERT INTO retrieved_learning_evaluations (org_id, project_id, user_id, session_id, agent_version, interaction_id, interaction_created_at,
     kind, learning_id, cited, exposure_verified, is_relevant, impact, created_at)
   SELECT $1, $2, i.user_id, i.session_id, 'v1', i.interaction_id, i.created_at, 'user_playbook', (i.interaction_id % 400)::text,
          i.interaction_id % 2 = 0, true, i.interaction_id % 3 <> 0, (ARRAY['positive', 'neutral', 'negative'])[1 + i.interaction_id % 3], i.created_at + 900
   FROM interactions i WHERE i.org_id = $1 AND i.project_id = $2 AND i.role = 'Agent' AND i.seq % ${TURNS_PER_SESSION} = 2
     AND substr(i.session_id, 2)::int % 5 = 1`,
  `INSERT INTO shadow_comparisons (org_id, project_id, user_id, session_id, interaction_id, agent_version, judge_prompt_version, winner,
     is_significantly_better, interaction_created_at, created_at)
   SELECT $1, $2, i.user_id, i.session_id, i.interaction_id, 'v1', $3, (ARRAY['regular', 'shadow', 'tie'])[1 + i.interaction_id % 3],
          i.interaction_id % 7 = 0, i.created_at, i.created_at + 900
   FROM interactions i WHERE i.org_id = $1 AND i.project_id = $2 AND i.shadow_content <> ''`,
];

const WINDOWS = [
  { name: "30 days, by day", days: 30, bucket: "day" },
  { name: "180 days, by week", days: 180, bucket: "week" },
  { name: "366 days, by week", days: 366, bucket: "week" },
] as const;

const rows: string[][] = [];
const counts: string[] = [];
// The overview embeds nothing; the app's dependencies want a model all the same.
const embedder = await createEmbedder({ kind: "local", modelDir: defaultModelDir(ROOT) });
for (const mode of modes) {
  const fresh = await freshServiceStorage("evaluation_overview", mode, postgresUrl);
  const storage: StorageOptions =
    mode === "full" ? { kind: "postgres", url: fresh.env.DATABASE_URL! } : { kind: "pglite", dataDir: `${fresh.env.DATA_DIR}/pglite` };
  let deps: CoreDeps | undefined;
  try {
    const pinned = ProjectConfig.parse({}).shadow_comparison_judge_prompt_version;
    const seedStarted = performance.now();
    // Seeding a million rows takes longer than the service's statement timeout allows one statement.
    const seeder = await openDatabase({ ...storage, timeouts: { connectMs: 10_000, acquireMs: 60_000, statementMs: 3_600_000 } });
    try {
      const scope = [LOCAL_SCOPE.orgId, LOCAL_SCOPE.projectId];
      for (const statement of SEED) {
        const rest = statement.includes("shadow_comparisons") ? [pinned] : statement.includes("$3") ? [sessions, NOW - 365 * DAY] : [];
        await seeder.query(statement, [...scope, ...rest]);
      }
      await seeder.exec("ANALYZE");
    } finally {
      await seeder.close();
    }
    const seeded = performance.now() - seedStarted;
    // Opened after the seeder closed: a PGlite directory has one engine at a time.
    const db = await openDatabase(storage);
    deps = { db, services: createProcessServices(db, new ProcessActivity()), embedder, now: systemClock, storage };
    const [count] = await deps.db.query<Record<string, number>>(
      `SELECT (SELECT count(*) FROM requests)::int AS sessions, (SELECT count(*) FROM interactions)::int AS interactions,
              (SELECT count(*) FROM agent_success_evaluations)::int AS verdicts, (SELECT count(*) FROM retrieved_learning_evaluations)::int AS learning_verdicts,
              (SELECT count(*) FROM shadow_comparisons)::int AS shadow_verdicts`,
    );
    counts.push(
      `${mode}: ${Object.entries(count!)
        .map(([name, n]) => `${n.toLocaleString("en")} ${name.replaceAll("_", " ")}`)
        .join(", ")}; seeded in ${seconds(seeded)}`,
    );
    progress(counts.at(-1)!);
    const app = buildApp({ deps, log: createLogger("error"), mode });
    for (const window of WINDOWS) {
      const body = JSON.stringify({
        from_ts: NOW - window.days * DAY,
        to_ts: NOW,
        bucket: window.bucket,
        source_sets: [
          { label: "chat", source: "chat" },
          { label: "email", source: "email" },
          { label: "no source", source: "" },
        ],
      });
      const samples: number[] = [];
      for (let i = 0; i < requestCount + 3; i++) {
        const started = performance.now();
        const response = await app.handle(
          new Request("http://localhost/api/get_evaluation_overview", { method: "POST", headers: { "content-type": "application/json" }, body }),
        );
        const answer = await response.text();
        if (response.status !== 200) throw new Error(`get_evaluation_overview answered ${response.status}: ${answer.slice(0, 300)}`);
        if (i >= 3) samples.push(performance.now() - started);
      }
      rows.push([mode, window.name, String(samples.length), ms(percentile(samples, 50)), ms(percentile(samples, 95)), ms(Math.max(...samples))]);
      progress(`${mode} ${window.name}: p50 ${ms(percentile(samples, 50))} ms`);
    }
  } finally {
    await deps?.db.close();
    await fresh.drop();
  }
}
await embedder.close();

console.log("## get_evaluation_overview\n");
for (const fact of hostFacts()) console.log(`- ${fact}`);
for (const line of counts) console.log(`- ${line}`);
console.log("- each window with three source sets; 3 warm-up requests, then the timed ones\n");
console.log(markdownTable(["mode", "window", "requests", "p50 ms", "p95 ms", "max ms"], rows));
