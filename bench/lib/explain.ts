import { mkdirSync, writeFileSync } from "node:fs";
import { SearchProfilesRequest } from "@als/contract";
import { type CoreDeps, searchProfiles } from "@als/core";
import { type Database, LOCAL_SCOPE } from "@als/db";

export interface CapturedQuery {
  text: string;
  params: readonly unknown[];
}

/**
 * The SQL and parameters that the service's search runs for `body`: core's searchProfiles over a
 * database that records the ranked-search statement (the one that mentions the fused `ranked` rows).
 */
export async function captureSearchQuery(deps: CoreDeps, body: Record<string, unknown>): Promise<CapturedQuery> {
  return captureRankedQuery(deps, (recording) => searchProfiles(recording, LOCAL_SCOPE, SearchProfilesRequest.parse(body)));
}

/**
 * The ranked-search statement (rankedSearchSql's fusion, the one that groups its `arms`) that `search`
 * runs when given deps whose database records it: any core search over any table.
 */
export async function captureRankedQuery(deps: CoreDeps, search: (recording: CoreDeps) => Promise<unknown>): Promise<CapturedQuery> {
  let captured: CapturedQuery | undefined;
  const recording: Database = {
    ...deps.db,
    query: (text, params) => {
      if (text.includes(") arms GROUP BY id")) captured = { text, params: params ?? [] };
      return deps.db.query(text, params);
    },
  };
  await search({ ...deps, db: recording });
  if (!captured) throw new Error("the search ran no ranked-search statement: bench/lib/explain.ts needs updating");
  return captured;
}

export type IterativeScan = "relaxed_order" | "off";

interface PlanNode {
  "Node Type": string;
  Alias?: string;
  "Index Name"?: string;
  "Relation Name"?: string;
  "Actual Rows"?: number;
  "Actual Total Time"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

export interface ArmSummary {
  /** Scans under the arm, e.g. "Index Scan profiles_embedding_hnsw" or "Seq Scan profiles". */
  scans: string[];
  /** Rows the arm fed into the fusion (at most its depth, topK × 4). */
  rows: number;
  /** Rows its scans read and then dropped by a filter (user, status, threshold, ...). */
  removedByFilter: number;
  /** Rows its table scans returned (for the text arm: every row matching the words, all ranked). */
  matched: number;
  /** Time until the arm's last row (EXPLAIN ANALYZE's actual total time of its top node). */
  millis: number;
}

export interface ExplainSummary {
  iterativeScan: IterativeScan;
  executionMillis: number;
  planningMillis: number;
  resultRows: number;
  vectorArm?: ArmSummary;
  textArm?: ArmSummary;
  /** The text plan, for the file written next to the summary. */
  textPlan: string;
}

/** EXPLAIN ANALYZE of the captured statement with hnsw.iterative_scan set for that transaction only. */
export async function explainSearch(
  db: Database,
  query: CapturedQuery,
  iterativeScan: IterativeScan,
  /** More planner settings for the transaction, e.g. "enable_indexscan = off". */
  settings: readonly string[] = [],
): Promise<ExplainSummary> {
  const run = (options: string) =>
    db.transaction(async (tx) => {
      await tx.query(`SET LOCAL hnsw.iterative_scan = ${iterativeScan}`);
      for (const setting of settings) await tx.query(`SET LOCAL ${setting}`);
      return tx.query<Record<string, unknown>>(`EXPLAIN (${options}) ${query.text}`, query.params);
    });
  const [row] = await run("ANALYZE, BUFFERS, FORMAT JSON");
  const raw = Object.values(row ?? {})[0];
  const parsed = (typeof raw === "string" ? JSON.parse(raw) : raw) as [{ Plan: PlanNode; "Execution Time": number; "Planning Time": number }];
  const top = parsed[0];
  const textRows = await run("ANALYZE, BUFFERS");
  const textPlan = textRows.map((r) => String(Object.values(r)[0])).join("\n");

  // Each arm is the subtree under the first node aliased `nearest`/`matches` or `*SELECT* n` (the
  // UNION ALL branches; the planner may flatten the named subqueries away); the text arm is the
  // one whose subtree tests search_text.
  const arms: { vector?: ArmSummary; text?: ArmSummary } = {};
  const walk = (node: PlanNode, arm: ArmSummary | undefined) => {
    let current = arm;
    if (!current && node.Alias !== undefined && /^(nearest|matches|\*SELECT\* \d+)$/.test(node.Alias)) {
      current = { scans: [], rows: node["Actual Rows"] ?? 0, removedByFilter: 0, matched: 0, millis: node["Actual Total Time"] ?? 0 };
      arms[JSON.stringify(node).includes("search_text @@") ? "text" : "vector"] = current;
    }
    if (current) {
      const type = node["Node Type"];
      if (node["Index Name"]) current.scans.push(`${type} ${node["Index Name"]}`);
      else if (type === "Seq Scan") current.scans.push(`Seq Scan ${node["Relation Name"] ?? ""}`.trim());
      const loops = node["Actual Loops"] ?? 1;
      current.removedByFilter += (node["Rows Removed by Filter"] ?? 0) * loops;
      if (["Seq Scan", "Index Scan", "Index Only Scan", "Bitmap Heap Scan"].includes(type)) current.matched += (node["Actual Rows"] ?? 0) * loops;
    }
    for (const child of node.Plans ?? []) walk(child, current);
  };
  walk(top.Plan, undefined);
  return {
    iterativeScan,
    executionMillis: top["Execution Time"],
    planningMillis: top["Planning Time"],
    resultRows: top.Plan["Actual Rows"] ?? 0,
    ...(arms.vector ? { vectorArm: arms.vector } : {}),
    ...(arms.text ? { textArm: arms.text } : {}),
    textPlan,
  };
}

export function writePlan(dir: string, name: string, query: CapturedQuery, summary: ExplainSummary): string {
  mkdirSync(dir, { recursive: true });
  const path = `${dir}/${name}.txt`;
  const params = query.params.map((value, index) => `$${index + 1} = ${truncate(JSON.stringify(value) ?? "null")}`).join("\n");
  writeFileSync(path, `-- hnsw.iterative_scan = ${summary.iterativeScan}\n${query.text}\n\n-- parameters\n${params}\n\n${summary.textPlan}\n`);
  return path;
}

const truncate = (text: string) => (text.length > 120 ? `${text.slice(0, 117)}...` : text);
