import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { openPglite } from "../src/drivers/pglite.ts";
import { migrate } from "../src/migrate.ts";
import { migratedTemplate } from "../src/migrated-template.ts";
import { openDatabase } from "../src/open.ts";

const scratch = mkdtempSync(join(tmpdir(), "als-template-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const keptFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith(".tar.gz"));

describe("the migrated template", () => {
  test("is made once, kept as a gzip file, read back by the next call, and loads as a migrated database", async () => {
    const dir = join(scratch, "kept");
    const made = await migratedTemplate(dir);
    const [file] = keptFiles(dir);
    expect(file).toMatch(/^[0-9a-f]{16}\.tar\.gz$/);
    const writtenAt = statSync(join(dir, file!)).mtimeMs;
    expect(gunzipSync(readFileSync(join(dir, file!))).byteLength).toBe(made.size);

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

  test("a damaged kept file is made anew and replaced, and the dumps of earlier migrations are removed", async () => {
    const dir = join(scratch, "kept");
    await migratedTemplate(dir);
    const [file] = keptFiles(dir);
    writeFileSync(join(dir, file!), "not a gzip file");
    // The dump of earlier migrations goes when a new one is kept.
    writeFileSync(join(dir, "0123456789abcdef.tar.gz"), "an earlier schema");
    const made = await migratedTemplate(dir);
    expect(gunzipSync(readFileSync(join(dir, file!))).byteLength).toBe(made.size);
    expect(keptFiles(dir)).toEqual([file!]);
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
