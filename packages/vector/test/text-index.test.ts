import { describe, expect, test } from "bun:test";
import { type TextDocument, type TextHit, TextIndex } from "../src/index.ts";

// The in-process text arm under churn: after many adds, updates and deletes (slots reused, holder
// lists compacted), every search answers what an index built once from the surviving rows answers.
// That an index built once ranks as PostgreSQL does is shown against the database in
// apps/server/test/vector-index/in-process-text-arm.test.ts.

const WORDS = ["refund", "order", "broken", "ship", "late", "invoic", "apolog", "track", "parcel", "replac", "custom", "trust"];
const SCOPES = [
  { orgId: "org-a", projectId: "default" },
  { orgId: "org-a", projectId: "other" },
];

/** A deterministic generator, so a failure is the same on every run. */
function generator(seed: number) {
  let state = seed;
  return (below: number) => {
    // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % below;
  };
}

function documentOf(id: string, next: (below: number) => number): TextDocument {
  const count = 1 + next(5);
  const lexemes = new Map<string, [number[], number[]]>();
  for (let i = 0; i < count; i++) {
    const word = WORDS[next(WORDS.length)]!;
    const entry = lexemes.get(word) ?? [[], []];
    entry[0].push(1 + next(40));
    entry[1].push(next(4));
    lexemes.set(word, entry);
  }
  return {
    id,
    scope: SCOPES[next(SCOPES.length)]!,
    payload: { user_id: `user-${next(3)}`, status: next(2) === 0 ? "CURRENT" : "ARCHIVED" },
    returned: JSON.stringify({ id }),
    searchText: [...lexemes].map(([word, [positions, weights]]) => `'${word}':${positions.map((p, i) => `${p}${"DCBA"[weights[i]!]}`).join(",")}`).join(" "),
  };
}

const sorted = (hits: { id: string; textScore: number }[]) => [...hits].sort((a, b) => a.id.localeCompare(b.id));

describe("the in-process text index", () => {
  test("after adds, updates and deletes it answers as one built from the surviving rows", () => {
    const next = generator(7);
    const churned = new TextIndex(["user_playbooks"], 0.5);
    const surviving = new Map<string, TextDocument>();
    for (let step = 0; step < 4000; step++) {
      const id = `row-${next(300)}`;
      if (next(4) === 0) {
        const known = surviving.get(id);
        if (known) churned.delete("user_playbooks", [known]);
        surviving.delete(id);
      } else {
        const document = documentOf(id, next);
        // An update may move a row to another scope: the service removes it, then adds it again.
        const known = surviving.get(id);
        if (known) churned.delete("user_playbooks", [known]);
        churned.upsert("user_playbooks", [document]);
        surviving.set(id, document);
      }
    }
    const fresh = new TextIndex(["user_playbooks"], 0.5);
    fresh.upsert("user_playbooks", [...surviving.values()]);

    let nonEmpty = 0;
    for (let q = 0; q < 200; q++) {
      const words = Array.from({ length: 1 + next(3) }, () => WORDS[next(WORDS.length)]!);
      const filter = {
        scope: SCOPES[next(SCOPES.length)]!,
        must: next(2) === 0 ? [] : [{ key: "user_id", equals: `user-${next(3)}` }],
      };
      const query = { filter, words, common: next(3) === 0 ? [words[0]!] : [] };
      const expected = sorted(fresh.search("user_playbooks", query).hits);
      expect(sorted(churned.search("user_playbooks", query).hits)).toEqual(expected);
      if (expected.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(150);
  });

  test("a row deleted is never served, also once another row takes its place", () => {
    const index = new TextIndex(["agent_playbooks"], 0.5);
    const scope = SCOPES[0]!;
    const only = (id: string, word: string): TextDocument => ({ id, scope, payload: {}, searchText: `'${word}':1A`, returned: JSON.stringify({ id, word }) });
    index.upsert("agent_playbooks", [only("1", "refund"), only("2", "refund"), only("3", "parcel")]);
    const search = (word: string) => index.search("agent_playbooks", { filter: { scope, must: [] }, words: [word], common: [] }).hits.map((hit) => hit.id);
    expect(search("refund").sort()).toEqual(["1", "2"]);
    index.delete("agent_playbooks", [{ id: "1", scope }]);
    expect(search("refund")).toEqual(["2"]);
    // Slot 1 is reused by a row with another word: the stale holder entry does not serve it.
    index.upsert("agent_playbooks", [only("4", "parcel")]);
    expect(search("refund")).toEqual(["2"]);
    expect(search("parcel").sort()).toEqual(["3", "4"]);
    index.delete("agent_playbooks", [
      { id: "2", scope },
      { id: "3", scope },
      { id: "4", scope },
    ]);
    expect(search("refund")).toEqual([]);
    expect(search("parcel")).toEqual([]);
  });

  test("returns the rows a search found as it holds them now, or null once one is gone or no longer passes the filter", () => {
    const index = new TextIndex(["user_playbooks"], 0.5);
    const [scope, other] = [SCOPES[0]!, SCOPES[1]!];
    const row = (id: string, status: string, content: string): TextDocument => ({
      id,
      scope,
      payload: { user_id: "user-1", status },
      searchText: `'refund':1A`,
      returned: JSON.stringify({ user_playbook_id: Number(id), status, content, tags: ["a", "ü"], expires_at: null }),
    });
    index.upsert("user_playbooks", [row("1", "CURRENT", "first"), row("2", "CURRENT", "second"), row("3", "ARCHIVED", "third")]);
    const current = { scope, must: [{ key: "status", anyOf: ["CURRENT"] }] };
    const rows = index.returnedRows("user_playbooks", current, ["2", "1"]);
    expect(rows).toEqual([
      { user_playbook_id: 2, status: "CURRENT", content: "second", tags: ["a", "ü"], expires_at: null },
      { user_playbook_id: 1, status: "CURRENT", content: "first", tags: ["a", "ü"], expires_at: null },
    ]);
    // Each caller gets rows of its own: changing one changes no later answer.
    rows![0]!.content = "changed by a caller";
    expect(index.returnedRows("user_playbooks", current, ["2"])).toEqual([expect.objectContaining({ content: "second" })]);
    // An update is returned as it is now.
    index.upsert("user_playbooks", [row("2", "CURRENT", "second, edited")]);
    expect(index.returnedRows("user_playbooks", current, ["2"])).toEqual([expect.objectContaining({ content: "second, edited" })]);
    // A row the filter leaves out now, one deleted, one of another project: the database must answer.
    expect(index.returnedRows("user_playbooks", current, ["1", "3"])).toBeNull();
    index.delete("user_playbooks", [{ id: "1", scope }]);
    expect(index.returnedRows("user_playbooks", current, ["2", "1"])).toBeNull();
    expect(index.returnedRows("user_playbooks", { scope: other, must: [] }, ["2"])).toBeNull();
    expect(index.returnedRows("user_playbooks", current, [])).toEqual([]);
  });
});

describe("the best rows of a text search", () => {
  // Ids that are numbers (int8) break a tie by number, as fusion does; others leave every tied row in.
  const byScoreThenId = (a: TextHit, b: TextHit) => b.textScore - a.textScore || Number(a.id) - Number(b.id);

  for (const [label, idOf] of [
    ["ids that are numbers", (row: number) => String(row)],
    ["text ids", (row: number) => `row-${row}`],
  ] as const) {
    test(`hold the full ranking's best, with the same scores, and any row's score is asked by id (${label})`, () => {
      const next = generator(11);
      const index = new TextIndex(["user_playbooks"], 0.25);
      const ids = Array.from({ length: 3000 }, (_, row) => idOf(row));
      for (const id of ids) index.upsert("user_playbooks", [documentOf(id, next)]);
      // Rows deleted and added again: holder lists with stale entries, slots reused.
      for (let row = 0; row < 3000; row += 7)
        index.delete(
          "user_playbooks",
          SCOPES.map((scope) => ({ id: ids[row]!, scope })),
        );
      for (let row = 0; row < 3000; row += 14) index.upsert("user_playbooks", [documentOf(ids[row]!, next)]);

      let cut = 0;
      for (let q = 0; q < 300; q++) {
        const words = Array.from({ length: 1 + next(3) }, () => WORDS[next(WORDS.length)]!);
        const must = next(2) === 0 ? [] : [{ key: "status", equals: next(4) === 0 ? "ARCHIVED" : "CURRENT" }];
        const query = { filter: { scope: SCOPES[next(SCOPES.length)]!, must }, words, common: next(3) === 0 ? [words[0]!] : [] };
        const best = 1 + next(60);
        const all = index.search("user_playbooks", query);
        const some = index.search("user_playbooks", { ...query, best });
        const kept = new Map(some.hits.map((hit) => [hit.id, hit.textScore]));
        const scoreOf = new Map(all.hits.map((hit) => [hit.id, hit.textScore]));
        for (const [id, score] of kept) expect(scoreOf.get(id)).toBe(score);
        const ranked = [...all.hits].sort(byScoreThenId);
        if (idOf(1) === "1") for (const hit of ranked.slice(0, best)) expect(kept.get(hit.id)).toBe(hit.textScore);
        else {
          const last = ranked[Math.min(best, ranked.length) - 1]?.textScore;
          for (const hit of ranked.filter((hit) => last !== undefined && hit.textScore >= last)) expect(kept.get(hit.id)).toBe(hit.textScore);
        }
        if (some.hits.length < all.hits.length) cut++;
        for (const id of ids.slice(0, 200)) expect(some.scoreOf(id)).toBe(scoreOf.get(id) ?? null);
      }
      expect(cut).toBeGreaterThan(200);
    });
  }
});
