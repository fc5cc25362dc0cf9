import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "@als/db";
import { openPglite } from "../src/drivers/pglite.ts";

// The embedded driver runs every statement as a named prepared statement, so PostgreSQL plans a
// statement text once and keeps a generic plan, as the PostgreSQL driver's prepared statements do.
// pg_prepared_statements shows what the session holds and how each statement was planned.

let db: Database;
beforeAll(async () => {
  db = await openPglite({});
  await db.exec("CREATE TABLE notes (id int PRIMARY KEY, body text NOT NULL)");
  await db.query("INSERT INTO notes SELECT i, 'note ' || i FROM generate_series(1, 50) AS i");
});
afterAll(() => db.close());

const held = async (statement: string) =>
  (
    await db.query<{ generic_plans: number; custom_plans: number }>("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement = $1", [
      statement,
    ])
  )[0];

describe("prepared statements of the embedded driver", () => {
  test("a statement text is prepared once and, run again, keeps a generic plan", async () => {
    const text = "SELECT body FROM notes WHERE id = $1";
    for (let id = 1; id <= 8; id++) expect(await db.query(text, [id])).toEqual([{ body: `note ${id}` }]);
    const plans = await held(text);
    expect(plans).toBeDefined();
    expect(plans!.custom_plans + plans!.generic_plans).toBe(8);
    expect(plans!.generic_plans).toBeGreaterThan(0);
  });

  test("values of every type go in and come back as the driver's own query did", async () => {
    const [row] = await db.query<Record<string, unknown>>("SELECT $1::int8 AS n, $2::text[] AS words, $3::jsonb AS doc, $4::bool AS yes, $5::text AS nothing", [
      9_007_199_254_740_991,
      ["a", "b,c", 'd"e'],
      { k: [1, 2] },
      true,
      null,
    ]);
    expect(row).toEqual({ n: 9_007_199_254_740_991, words: ["a", "b,c", 'd"e'], doc: { k: [1, 2] }, yes: true, nothing: null });
  });

  test("a result of more rows than a call takes arguments comes back whole", async () => {
    const [last] = (await db.query<{ n: number }>("SELECT n FROM generate_series(1, $1::int) AS n", [1_200_000])).slice(-1);
    expect(last).toEqual({ n: 1_200_000 });
  });

  test("a failed statement leaves the session usable, and is not kept", async () => {
    await expect(db.query("SELECT body FROM notes WHERE id = $1 AND nonsense", [1])).rejects.toThrow(/nonsense/);
    await expect(db.query("SELECT 1 / $1::int AS q", [0])).rejects.toThrow(/division by zero/);
    expect(await db.query("SELECT count(*)::int AS n FROM notes")).toEqual([{ n: 50 }]);
    expect(await held("SELECT body FROM notes WHERE id = $1 AND nonsense")).toBeUndefined();
  });

  test("a statement prepared before a change of its table's columns is prepared again", async () => {
    const text = "SELECT * FROM notes WHERE id = $1";
    expect(await db.query(text, [3])).toEqual([{ id: 3, body: "note 3" }]);
    await db.exec("ALTER TABLE notes ADD COLUMN tag text NOT NULL DEFAULT 'x'");
    try {
      expect(await db.query(text, [3])).toEqual([{ id: 3, body: "note 3", tag: "x" }]);
    } finally {
      await db.exec("ALTER TABLE notes DROP COLUMN tag");
    }
  });

  test("statements in a transaction are prepared too, and a rolled-back transaction changes nothing", async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query("UPDATE notes SET body = $1 WHERE id = $2", ["changed", 4]);
        expect(await tx.query("SELECT body FROM notes WHERE id = $1", [4])).toEqual([{ body: "changed" }]);
        await tx.query("SELECT 1 / $1::int", [0]);
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await db.query("SELECT body FROM notes WHERE id = $1", [4])).toEqual([{ body: "note 4" }]);
    expect(await held("UPDATE notes SET body = $1 WHERE id = $2")).toBeDefined();
  });

  test("the session holds at most 500 statements: the least recently used are closed", async () => {
    const first = "SELECT body FROM notes WHERE id = $1 AND 0 = 0";
    await db.query(first, [1]);
    for (let i = 1; i <= 520; i++) await db.query(`SELECT body FROM notes WHERE id = $1 AND ${i} = ${i}`, [1]);
    const [count] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements");
    expect(count!.n).toBeLessThanOrEqual(501);
    expect(await held(first)).toBeUndefined();
    // A closed statement is prepared again when it comes back.
    expect(await db.query(first, [2])).toEqual([{ body: "note 2" }]);
  });
});
