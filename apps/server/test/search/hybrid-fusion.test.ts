import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FUSION, vectorLiteral } from "@als/db";
import { addAgentPlaybooks } from "@als/test-support/playbooks.ts";
import { startTestService, type TestService } from "@als/test-support/service.ts";
import { PgVectorIndex } from "@als/vector";

// Hybrid search fuses the arms' scores (FUSION in packages/db). The rows' vectors are set here at
// chosen cosine similarities to the query's, so the vector arm's margin is known exactly and the
// tests say what the text arm may and may not overturn, whatever the model.
let svc: TestService;
const id: Record<string, number> = {};

beforeAll(async () => {
  svc = await startTestService();
  const playbooks: [string, object][] = [
    ["e4012", { trigger: "The payment fails with error E-4012", content: "Ask the user to call their bank" }],
    ["e4015", { trigger: "The payment fails with error E-4015", content: "Ask for the new expiry date" }],
    ["legal", { trigger: "The user wants legal information", content: "Recommend a licensed lawyer" }],
    ["export", { trigger: "The user asks how to export their data", content: "Point to the export button under account settings" }],
  ];
  const ids = await addAgentPlaybooks(
    svc,
    playbooks.map(([, playbook]) => ({ ...playbook, playbook_status: "APPROVED" })),
  );
  for (const [index, [name]] of playbooks.entries()) id[name] = ids[index]!;
});
afterAll(() => svc.close());

/**
 * Gives the row a unit vector whose relevance to the query (FUSION: its similarity rescaled from
 * the model's floor) is `relevance`.
 */
async function placeRow(query: string, name: string, relevance: number): Promise<void> {
  const floor = svc.deps.embedder.defaultThreshold;
  const similarity = floor + relevance * (1 - floor);
  const q = await svc.deps.embedder.embedQuery(query);
  // A unit vector orthogonal to q (Gram-Schmidt from the first axis), mixed in.
  const other = q.map((value, index) => (index === 0 ? 1 : 0) - q[0]! * value);
  const norm = Math.hypot(...other);
  const side = Math.sqrt(1 - similarity * similarity);
  const vector = q.map((value, index) => similarity * value + (side * other[index]!) / norm);
  await svc.db.query("UPDATE agent_playbooks SET embedding = $1::vector WHERE agent_playbook_id = $2", [vectorLiteral(vector), id[name]]);
}

/** The text arm's normalised ts_rank_cd of the row for these lexemes (OR), before any partial-match cut. */
async function textRank(name: string, lexemes: string[]): Promise<number> {
  const [row] = await svc.db.query<{ rank: number }>(
    "SELECT ts_rank_cd(search_text, to_tsquery('simple', $1), 32)::float8 AS rank FROM agent_playbooks WHERE agent_playbook_id = $2",
    [lexemes.join(" | "), id[name]],
  );
  return row!.rank;
}

async function ranked(query: string, search_mode: string): Promise<number[]> {
  const response = await svc.call("POST", "/api/search_agent_playbooks", { query, search_mode, threshold: 0, top_k: 4 });
  expect(response.status).toBe(200);
  return response.body.agent_playbooks.map((playbook: { agent_playbook_id: number }) => playbook.agent_playbook_id);
}

/** The same search without and with a vector index (the fusion in SQL and in code). */
async function bothPaths(query: string): Promise<number[][]> {
  const inSql = await ranked(query, "hybrid");
  svc.deps.vectorIndex = new PgVectorIndex(svc.db);
  try {
    return [inSql, await ranked(query, "hybrid")];
  } finally {
    svc.deps.vectorIndex = undefined;
  }
}

describe("hybrid search fuses the arms' scores", () => {
  test("a row holding every word of the query overtakes a near twin the vector arm prefers", async () => {
    const full = FUSION.text * (await textRank("e4015", ["e-4015", "e", "4015"]));
    expect(full).toBeGreaterThan(0);
    // The vector arm prefers E-4012 by half of what E-4015's full text match is worth.
    await placeRow("E-4015", "e4015", 0.6);
    await placeRow("E-4015", "e4012", 0.6 + full / 2 / FUSION.vector);
    expect((await ranked("E-4015", "vector"))[0]).toBe(id.e4012!);
    for (const order of await bothPaths("E-4015")) expect(order[0]).toBe(id.e4015!);
  });

  test("a row sharing only some of the query's words cannot overturn the same margin", async () => {
    // "legal" holds "information" but not "download": a partial match, worth FUSION.partialMatch of its text rank.
    const whole = FUSION.text * (await textRank("legal", ["download", "inform"]));
    expect(whole).toBeGreaterThan(0);
    // A margin the whole text rank would overturn and a quarter of it cannot.
    const margin = ((1 + FUSION.partialMatch) / 2) * whole;
    await placeRow("download my information", "export", 0.5);
    await placeRow("download my information", "legal", 0.5 - margin / FUSION.vector);
    for (const order of await bothPaths("download my information")) expect(order.indexOf(id.export!)).toBeLessThan(order.indexOf(id.legal!));
  });
});
