import { describe, expect, test } from "bun:test";
import { type TextDocument, TextIndex } from "../src/index.ts";

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
      const expected = sorted(fresh.search("user_playbooks", query));
      expect(sorted(churned.search("user_playbooks", query))).toEqual(expected);
      if (expected.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThan(150);
  });

  test("a row deleted is never served, also once another row takes its place", () => {
    const index = new TextIndex(["agent_playbooks"], 0.5);
    const scope = SCOPES[0]!;
    const only = (id: string, word: string): TextDocument => ({ id, scope, payload: {}, searchText: `'${word}':1A` });
    index.upsert("agent_playbooks", [only("1", "refund"), only("2", "refund"), only("3", "parcel")]);
    const search = (word: string) => index.search("agent_playbooks", { filter: { scope, must: [] }, words: [word], common: [] }).map((hit) => hit.id);
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
});
