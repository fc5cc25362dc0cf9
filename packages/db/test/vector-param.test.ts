import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase, VectorParam, vectorLiteral } from "@als/db";

// A vector parameter reaches PGlite in pgvector's binary form and PostgreSQL as text (the driver
// chooses); either way the engine must hold the same vector as from its text, and refuse the same
// bad ones. Here on PGlite; the server suites write and search vectors through both drivers.

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ kind: "pglite" });
});
afterAll(() => db.close());

const unit = (seed: number) => {
  const values = Array.from({ length: 384 }, (_, i) => Math.sin(seed * 7.1 + i * 0.37));
  const norm = Math.hypot(...values);
  return values.map((value) => value / norm);
};

describe("a vector parameter", () => {
  test("is the vector its text form gives, to every digit pgvector keeps", async () => {
    for (const seed of [1, 2, 3]) {
      const values = unit(seed);
      const [row] = await db.query<{ same: boolean; text: string }>("SELECT $1::vector = $2::vector AS same, $1::vector::text AS text", [
        new VectorParam(values),
        vectorLiteral(values),
      ]);
      expect(row!.same).toBe(true);
      expect(row!.text).toBe((await db.query<{ text: string }>("SELECT $1::vector::text AS text", [vectorLiteral(values)]))[0]!.text);
    }
    const [edge] = await db.query<{ text: string }>("SELECT $1::vector::text AS text", [new VectorParam([0, -0.5, 1e-30, 3.4e38])]);
    expect(edge!.text).toBe("[0,-0.5,1e-30,3.4e+38]");
  });

  test("of the wrong length, or holding NaN, is refused as its text would be", async () => {
    const refused = async (values: number[]) => {
      const binary = await db.query("SELECT $1::vector(384)", [new VectorParam(values)]).then(
        () => "accepted",
        (error: Error) => error.message,
      );
      const text = await db.query("SELECT $1::vector(384)", [vectorLiteral(values)]).then(
        () => "accepted",
        (error: Error) => error.message,
      );
      return { binary, text };
    };
    const short = await refused([0.1, 0.2]);
    expect(short.binary).toContain("expected 384 dimensions, not 2");
    expect(short.text).toContain("expected 384 dimensions, not 2");
    const nan = await refused([...unit(4).slice(1), Number.NaN]);
    expect(nan.binary).toContain("NaN not allowed in vector");
    expect(nan.text).toContain("NaN");
  });
});
