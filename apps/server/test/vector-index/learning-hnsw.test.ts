import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CoreOptions, createCoreDeps, keepLearningHnswWhereSearched, loadSettings } from "@als/core";
import { learningHnsw, openDatabase, openMaintenanceConnection } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";
import { until } from "@als/test-support/server-process.ts";

// The database's HNSW indexes of the user and agent playbooks are kept only where a search may walk
// them: beside the in-process index (the embedded default, and full mode's with VECTOR_INDEX) or
// Qdrant every process drops them, since every insert paid for them; chosen back to pgvector, they
// are built again: before the process serves on PGlite, concurrently in the background on a
// server, by one process at a time.

const ALL = ["agent_playbooks_embedding_hnsw", "user_playbooks_embedding_hnsw"];
const quiet = { info() {}, error() {} };
let storage: Record<string, string>;
let drop: () => Promise<void>;

beforeAll(async () => {
  if (testMode === "embedded") {
    const dataDir = mkdtempSync(join(tmpdir(), "als-hnsw-"));
    storage = { DATA_DIR: dataDir };
    drop = async () => rmSync(dataDir, { recursive: true, force: true });
  } else {
    const fresh = await createFreshDatabase(process.env.TEST_DATABASE_URL!);
    storage = { DATABASE_URL: fresh.url };
    drop = fresh.drop;
  }
});
afterAll(() => drop?.());

/** The learnings' HNSW indexes missing once a start with `env` has done its upkeep (a server's build waited for), and whether it opened a vector index. */
async function startWith(env: Record<string, string>, options: CoreOptions = {}): Promise<{ missing: string[]; opened: boolean }> {
  const graph = await createCoreDeps(loadSettings({ ...storage, ...env }), quiet, options);
  try {
    const missing =
      env.VECTOR_INDEX === "in-process" || env.QDRANT_URL
        ? await learningHnsw.missingLearningHnsw(graph.deps.db)
        : await until(async () => {
            const left = await learningHnsw.missingLearningHnsw(graph.deps.db);
            return left.length === 0 ? left : undefined;
          }, 30_000);
    return { missing: missing.sort(), opened: graph.deps.vectorIndex !== undefined };
  } finally {
    await graph.close();
  }
}

describe("the learnings' HNSW indexes follow the vector index", () => {
  test(`${testMode}: dropped beside the in-process index or Qdrant, built again when pgvector searches`, async () => {
    expect(await startWith({ VECTOR_INDEX: "in-process" })).toEqual({ missing: ALL, opened: true });
    expect(await startWith({ VECTOR_INDEX: "pgvector" })).toEqual({ missing: [], opened: false });
    // Qdrant out of reach: the process starts all the same (its searches answer 503 until it answers).
    expect(await startWith({ QDRANT_URL: "http://127.0.0.1:9" })).toEqual({ missing: ALL, opened: true });
    expect(await startWith({ VECTOR_INDEX: "pgvector" })).toEqual({ missing: [], opened: false });
  }, 60_000);

  test(`${testMode}: a process that serves no search (the worker) follows the deployment's choice and opens no index`, async () => {
    expect(await startWith({ VECTOR_INDEX: "in-process" }, { searches: false })).toEqual({ missing: ALL, opened: false });
    expect(await startWith({ VECTOR_INDEX: "pgvector" }, { searches: false })).toEqual({ missing: [], opened: false });
  }, 60_000);
});

describe.skipIf(testMode !== "full")("on a PostgreSQL server", () => {
  const settings = () => loadSettings(storage);

  test("a build under way in another process is left to it; the next start builds what is still missing", async () => {
    const { storage: options } = settings();
    if (options.kind !== "postgres") throw new Error("full mode");
    const db = await openDatabase(options);
    const other = openMaintenanceConnection(options);
    try {
      await keepLearningHnswWhereSearched(db, { vectorIndex: "in-process" }, quiet);
      expect((await learningHnsw.missingLearningHnsw(db)).sort()).toEqual(ALL);
      // Another process holds the build's lock, as while it builds.
      await other.query("SELECT pg_advisory_lock(hashtext('als:learning-hnsw'))");
      const logged: string[] = [];
      const log = { info: (message: string) => logged.push(message), error: (message: string) => logged.push(message) };
      const leftToOther = await keepLearningHnswWhereSearched(db, { vectorIndex: "pgvector", storage: options }, log);
      await leftToOther!.done;
      expect(logged).toContain("the learnings' HNSW indexes are being built by another process");
      expect((await learningHnsw.missingLearningHnsw(db)).sort()).toEqual(ALL);

      await other.query("SELECT pg_advisory_unlock(hashtext('als:learning-hnsw'))");
      const build = await keepLearningHnswWhereSearched(db, { vectorIndex: "pgvector", storage: options }, log);
      await build!.done;
      expect(await learningHnsw.missingLearningHnsw(db)).toEqual([]);
      // Nothing missing: nothing to build, and no connection opened for it.
      expect(await keepLearningHnswWhereSearched(db, { vectorIndex: "pgvector", storage: options }, log)).toBeNull();
    } finally {
      await other.close();
      await db.close();
    }
  }, 60_000);

  test("an index a stopped build left invalid counts as missing, and is dropped and built again", async () => {
    const { storage: options } = settings();
    if (options.kind !== "postgres") throw new Error("full mode");
    const db = await openDatabase(options);
    try {
      await learningHnsw.restoreLearningHnsw(db, { concurrently: true });
      // What a concurrent build killed midway leaves behind: the index, marked not valid.
      await db.query("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'user_playbooks_embedding_hnsw'::regclass");
      expect(await learningHnsw.missingLearningHnsw(db)).toEqual(["user_playbooks_embedding_hnsw"]);
      const build = await keepLearningHnswWhereSearched(db, { vectorIndex: "pgvector", storage: options }, quiet);
      await build!.done;
      expect(await learningHnsw.missingLearningHnsw(db)).toEqual([]);
    } finally {
      await db.close();
    }
  }, 60_000);
});
