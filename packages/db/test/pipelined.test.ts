import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Database, openDatabase, pipelined } from "@als/db";

// The statements after a failed one of a transaction are refused with in_failed_sql_transaction;
// pipelined answers the failure that caused them, whichever rejection reaches it first.

describe("pipelined statements", () => {
  test("a refusal that settles before its cause does not hide the cause", async () => {
    const cause = Object.assign(new Error("could not extend file: No space left on device"), { code: "53100" });
    const refused = Object.assign(new Error("current transaction is aborted"), { code: "25P02" });
    const failing = new Promise((_, reject) => setTimeout(() => reject(cause), 5));
    await expect(pipelined([Promise.resolve(1), failing, Promise.reject(refused)])).rejects.toBe(cause);
    // Promise.all answers whichever settles first: the refusal.
    await expect(Promise.all([Promise.resolve(1), new Promise((_, reject) => setTimeout(() => reject(cause), 5)), Promise.reject(refused)])).rejects.toBe(
      refused,
    );
  });

  test("results come in the statements' order, values passed through", async () => {
    expect(await pipelined([Promise.resolve("a"), false, Promise.resolve(3)])).toEqual(["a", false, 3]);
  });

  describe("in a real transaction", () => {
    let db: Database;
    beforeAll(async () => {
      db = await openDatabase({ kind: "pglite" });
    });
    afterAll(() => db.close());

    test("answers the statement that failed, not the ones refused after it", async () => {
      const failure = await db
        .transaction((tx) =>
          pipelined([tx.query("SELECT 1 AS one"), tx.query("SELECT 1 / 0 AS broken"), tx.query("SELECT 2 AS two"), tx.query("SELECT 3 AS three")]),
        )
        .then(
          () => undefined,
          (error: unknown) => error as { code?: string },
        );
      expect(failure?.code).toBe("22012");
    });
  });
});
