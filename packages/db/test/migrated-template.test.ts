import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPglite } from "../src/drivers/pglite.ts";
import { migrate } from "../src/migrate.ts";
import { discardTemplate, migratedTemplate, wholeTar } from "../src/migrated-template.ts";
import { openDatabase } from "../src/open.ts";

const scratch = mkdtempSync(join(tmpdir(), "als-template-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const keptFiles = (dir: string) => readdirSync(dir).filter((name) => /\.tar(\.gz)?$/.test(name));

describe("the migrated template", () => {
  test("is made once, kept as a tar file, read back by the next call, and loads as a migrated database", async () => {
    const dir = join(scratch, "kept");
    const made = await migratedTemplate(dir);
    const [file] = keptFiles(dir);
    expect(file).toMatch(/^[0-9a-f]{16}\.tar$/);
    const writtenAt = statSync(join(dir, file!)).mtimeMs;
    expect(readFileSync(join(dir, file!)).byteLength).toBe(made.size);

    const read = await migratedTemplate(dir);
    expect(statSync(join(dir, file!)).mtimeMs).toBe(writtenAt);
    expect(read.size).toBe(made.size);
    expect(readdirSync(dir)).toEqual([file!]);

    const db = await openPglite({ loadDataDir: read });
    try {
      // Every migration is already applied: migrate has nothing left to do.
      expect(await migrate(db)).toEqual([]);
      expect(await db.query("SELECT count(*) AS n FROM profiles")).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });

  test("a damaged kept file is made anew, and the dumps of earlier migrations or builds are removed", async () => {
    const dir = join(scratch, "kept");
    const whole = new Uint8Array(await (await migratedTemplate(dir)).arrayBuffer());
    const [file] = keptFiles(dir);
    // Cut short, its first header overwritten, or not a tar at all: each is refused before PGlite sees it.
    expect(wholeTar(whole)).toBe(true);
    for (const damaged of [whole.subarray(0, whole.byteLength - 100), Uint8Array.from(whole).fill(1, 0, 512)]) {
      expect(wholeTar(damaged)).toBe(false);
    }
    writeFileSync(join(dir, file!), "not a tar file");
    // The dumps of earlier migrations go when a new one is kept, gzipped ones of earlier builds too.
    writeFileSync(join(dir, "0123456789abcdef.tar"), "an earlier schema");
    writeFileSync(join(dir, "fedcba9876543210.tar.gz"), "an earlier build");
    expect((await migratedTemplate(dir)).size).toBe(whole.byteLength);
    expect(readFileSync(join(dir, file!)).byteLength).toBe(whole.byteLength);
    expect(keptFiles(dir)).toEqual([file!]);
    await discardTemplate(dir);
    expect(keptFiles(dir)).toEqual([]);
  });
});

describe("a fresh data directory", () => {
  test("a missing or empty directory starts from the template, migrated, and keeps what is written across a reopen", async () => {
    const empty = join(scratch, "empty");
    mkdirSync(empty);
    for (const dataDir of [join(scratch, "missing", "pglite"), empty]) {
      const db = await openDatabase({ kind: "pglite", dataDir });
      await db.query("INSERT INTO organizations (org_id, name, created_at) VALUES ('org-1', 'Acme', 0)");
      await db.close();
      const reopened = await openDatabase({ kind: "pglite", dataDir });
      try {
        expect(await reopened.query("SELECT name FROM organizations WHERE org_id = 'org-1'")).toEqual([{ name: "Acme" }]);
      } finally {
        await reopened.close();
      }
    }
  });
});
