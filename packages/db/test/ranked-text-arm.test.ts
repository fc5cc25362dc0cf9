import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, LOCAL_SCOPE, openDatabase, Params } from "@als/db";
import { rankedSearchSql } from "../src/queries/ranked-search.ts";

// The full-text arm's cost must not grow with the number of rows that share a word with the query:
// it ranks a bounded number of candidates, and rows holding only some of the words only when too
// few hold them all. Seen in the executed plan, since the answers alone cannot show what was ranked.
// No common lexemes are passed, so "alpha" (in most rows) stays in the query.

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ kind: "pglite" });
  const rows = [
    ...Array.from({ length: 1_200 }, (_, i) => `alpha gamma note ${i}`),
    ...Array.from({ length: 45 }, (_, i) => `delta epsilon note ${i}`),
    ...Array.from({ length: 5 }, (_, i) => `delta only note ${i}`),
  ];
  const params = new Params();
  const values = rows.map((content) => `(${params.add(LOCAL_SCOPE.orgId)}, ${params.add(LOCAL_SCOPE.projectId)}, ${params.add(content)}, 1, 1)`);
  await db.query(`INSERT INTO agent_playbooks (org_id, project_id, content, created_at, last_modified_timestamp) VALUES ${values.join(", ")}`, params.values);
});
afterAll(() => db.close());

const AGENT_PLAYBOOKS = { table: "agent_playbooks", idColumn: "agent_playbook_id", idType: "int8" } as const;

async function textSearch(text: string, topK: number) {
  const params = new Params();
  const where = `org_id = ${params.add(LOCAL_SCOPE.orgId)} AND project_id = ${params.add(LOCAL_SCOPE.projectId)}`;
  const sql = rankedSearchSql({ ...AGENT_PLAYBOOKS, where, params, mode: "fts", text, commonLexemes: [], similarityFloor: 0.1, topK });
  const [explained] = await db.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params.values);
  const plan = nodes(explained!["QUERY PLAN"][0].Plan);
  const rows = await db.query<{ id: number; text_score: number }>(sql, params.values);
  return { rows, plan, tableScans: plan.filter((node) => node["Relation Name"] === "agent_playbooks" && node["Actual Loops"] > 0) };
}

describe("the full-text arm's bounds", () => {
  test("of 1,200 rows sharing a word with the query, at most 1,000 are ranked", async () => {
    const { rows, plan } = await textSearch("alpha beta", 10);
    expect(rows).toHaveLength(10);
    const limited = plan.filter((node) => node["Node Type"] === "Limit").map((node) => node["Actual Rows"]);
    expect(Math.max(...limited)).toBe(1_000);
  });

  test("rows holding some of the words are ranked only when fewer rows than the arm's depth hold them all", async () => {
    // 45 rows hold both words; top_k 10 ranks 40 per arm: the whole matches suffice, the partial scan never runs.
    const enough = await textSearch("delta epsilon", 10);
    expect(enough.tableScans).toHaveLength(1);
    // top_k 20 ranks 80: 45 whole matches are too few, so the 5 rows holding "delta" alone follow them.
    const tooFew = await textSearch("delta epsilon", 20);
    expect(tooFew.tableScans).toHaveLength(2);
    const wholeScore = Math.min(...tooFew.rows.slice(0, 20).map((row) => row.text_score));
    expect(wholeScore).toBeGreaterThan(0);
    const all = await textSearch("delta epsilon", 100);
    expect(all.rows).toHaveLength(50);
    expect(all.rows.slice(45).every((row) => row.text_score < wholeScore)).toBe(true);
  });
});
