import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { agentPlaybooks, type Database, LOCAL_SCOPE, openDatabase, Params } from "@als/db";

// An embedded search ranks in the process and then fetches its few rows in one prepared
// statement. PostgreSQL keeps a generic plan for it only when that plan costs no more than the
// ones made for the values; otherwise it plans every fetch anew, on PGlite's one thread. The
// fetch's text is written so that it does (the list's length and the statuses in the text).

let db: Database;
let ids: string[];
beforeAll(async () => {
  db = await openDatabase({ kind: "pglite" });
  const params = new Params();
  const values = Array.from(
    { length: 200 },
    (_, i) =>
      `(${params.add(LOCAL_SCOPE.orgId)}, ${params.add(LOCAL_SCOPE.projectId)}, ${params.add(`note ${i}`)}, ${params.add(i % 10 === 0 ? "ARCHIVED" : "CURRENT")}, 1, 1)`,
  );
  const rows = await db.query<{ id: string }>(
    `INSERT INTO agent_playbooks (org_id, project_id, content, status, created_at, last_modified_timestamp) VALUES ${values.join(", ")} RETURNING agent_playbook_id::text AS id`,
    params.values,
  );
  ids = rows.map((row) => row.id);
  await db.exec("ANALYZE agent_playbooks");
});
afterAll(() => db.close());

describe("the fetch of a search's fused rows", () => {
  test("keeps a generic plan, and answers the rows passing the filters in score order", async () => {
    const scores = [0.9, 0.8, 0.7, 0.6, 0.5];
    for (let run = 0; run < 12; run++) {
      const found = ids.slice(run * 5, run * 5 + 5);
      const rows = await agentPlaybooks.searchAgentPlaybooks(
        db,
        LOCAL_SCOPE,
        { statuses: ["CURRENT"] },
        {
          mode: "hybrid",
          embeddingModel: "model",
          queryText: "note",
          commonLexemes: [],
          similarityFloor: 0.7,
          topK: 5,
          fusedFound: { ids: found, scores, similarities: scores, textScores: [null, null, null, null, null] },
        },
      );
      // Every tenth row is archived: the filter leaves it out.
      expect(rows.map((row) => String(row.agent_playbook_id))).toEqual(found.filter((id) => ids.indexOf(id) % 10 !== 0));
    }
    const [plans] = await db.query<{ generic_plans: number; custom_plans: number }>(
      "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%AS found(found_id%' AND statement NOT LIKE '%pg_prepared_statements%'",
    );
    expect(plans!.custom_plans).toBeLessThanOrEqual(5);
    expect(plans!.generic_plans).toBeGreaterThanOrEqual(7);
  });

  test("a status outside the known ones never reaches the statement's text", async () => {
    const filters = { statuses: ["CURRENT') OR (TRUE"] } as unknown as agentPlaybooks.AgentPlaybookFilters;
    await expect(agentPlaybooks.listAgentPlaybooks(db, LOCAL_SCOPE, filters, 10)).rejects.toThrow("is not one of CURRENT, PENDING, ARCHIVED");
  });
});
