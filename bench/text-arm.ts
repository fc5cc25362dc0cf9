/**
 * The full-text arm of ranked search alone, the statement /api/search runs with search_mode "fts",
 * over agent playbooks searched project-wide (no user narrows them): p50 / p95 / max per size and
 * storage mode, for natural questions (bench/lib/playbooks.ts). No embeddings are needed, so a 100k
 * table seeds in seconds; this is the arm that grew with the corpus in bench/unified-search.ts.
 *
 *   bun bench/text-arm.ts [--sizes 10000,100000] [--modes embedded,full] [--queries 100] [--postgres-url <server>]
 *
 * Each row seeds a fresh database (dropped at the end), ANALYZEs it so that common words are known,
 * and runs each query once after 10 warm-up queries. Progress goes to stderr, the report to stdout.
 */
import { parseArgs } from "node:util";
import { commonLexemes, LOCAL_SCOPE, openDatabase, Params } from "@als/db";
import { rankedSearchSql } from "../packages/db/src/queries/ranked-search.ts";
import { freshServiceStorage } from "./lib/fresh-storage.ts";
import { hostFacts } from "./lib/machine.ts";
import { integerOption, postgresUrlOption, storageModesOption } from "./lib/options.ts";
import { playbookQueryTexts, playbookTexts } from "./lib/playbooks.ts";
import { markdownTable, ms, percentile } from "./lib/stats.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const TOP_K = 5;
const WARMUP = 10;

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: {
    sizes: { type: "string", default: "10000,100000" },
    modes: { type: "string", default: "embedded,full" },
    queries: { type: "string", default: "100" },
    "postgres-url": { type: "string" },
  },
  strict: true,
});
const sizes = values.sizes.split(",").map((size) => integerOption("sizes", size.trim(), 1));
const modes = storageModesOption(values.modes);
const queryCount = integerOption("queries", values.queries, 1);
const postgresUrl = postgresUrlOption(values["postgres-url"], modes, ROOT);
const progress = (message: string) => console.error(`[text-arm ${new Date().toISOString().slice(11, 19)}] ${message}`);

const queries = playbookQueryTexts(WARMUP + queryCount, 7, new Set());
const rows: string[][] = [];
for (const mode of modes) {
  for (const size of sizes) {
    const storage = await freshServiceStorage("text_arm", mode, postgresUrl);
    const db = await openDatabase(
      mode === "full" ? { kind: "postgres", url: storage.env.DATABASE_URL! } : { kind: "pglite", dataDir: `${storage.env.DATA_DIR}/pglite` },
    );
    try {
      const texts = playbookTexts(size);
      for (let start = 0; start < size; start += 2_000) {
        const params = new Params();
        const values = texts
          .slice(start, start + 2_000)
          .map((text) => `(${params.add(LOCAL_SCOPE.orgId)}, ${params.add(LOCAL_SCOPE.projectId)}, ${params.add(text)}, 'APPROVED', 1, 1)`);
        await db.query(
          `INSERT INTO agent_playbooks (org_id, project_id, content, playbook_status, created_at, last_modified_timestamp) VALUES ${values.join(", ")}`,
          params.values,
        );
      }
      await db.exec("ANALYZE agent_playbooks");
      const common = await commonLexemes(db, "agent_playbooks");
      progress(`${mode} ${size}: seeded`);
      const samples: number[] = [];
      let found = 0;
      for (const [index, text] of queries.entries()) {
        const params = new Params();
        const where = `org_id = ${params.add(LOCAL_SCOPE.orgId)} AND project_id = ${params.add(LOCAL_SCOPE.projectId)} AND playbook_status = 'APPROVED'`;
        const sql = rankedSearchSql({
          table: "agent_playbooks",
          idColumn: "agent_playbook_id",
          idType: "int8",
          where,
          params,
          mode: "fts",
          text,
          commonLexemes: common,
          similarityFloor: 0,
          topK: TOP_K,
        });
        const started = performance.now();
        const answer = await db.query(sql, params.values);
        if (index < WARMUP) continue;
        samples.push(performance.now() - started);
        found += answer.length;
      }
      rows.push([
        mode,
        String(size),
        String(samples.length),
        ms(percentile(samples, 50)),
        ms(percentile(samples, 95)),
        ms(Math.max(...samples)),
        (found / samples.length).toFixed(1),
      ]);
    } finally {
      await db.close();
      await storage.drop();
    }
  }
}

console.log("## The full-text arm alone (agent playbooks, project-wide)\n");
for (const fact of hostFacts()) console.log(`- ${fact}`);
console.log(`- top_k ${TOP_K}; each query a natural question never sent before in the row; ${WARMUP} warm-up queries first\n`);
console.log(markdownTable(["mode", "rows", "queries", "p50 ms", "p95 ms", "max ms", "rows answered"], rows));
