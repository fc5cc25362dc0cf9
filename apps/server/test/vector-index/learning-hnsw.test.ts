import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCoreDeps, loadSettings } from "@als/core";
import { learningHnsw } from "@als/db";
import { testMode } from "@als/test-support/database.ts";
import { createFreshDatabase } from "@als/test-support/postgres-database.ts";

// The database's HNSW indexes of the learnings are kept only where a search may walk them: an
// embedded server with the in-process index (the default) drops them, since every insert paid for
// them on PGlite's one thread; chosen back to pgvector, it builds them again. PostgreSQL keeps them.

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

/** The learnings' HNSW indexes missing after a start with `env`. */
async function startWith(env: Record<string, string>): Promise<string[]> {
  const graph = await createCoreDeps(loadSettings({ ...storage, ...env }), quiet);
  try {
    return await learningHnsw.missingLearningHnsw(graph.deps.db);
  } finally {
    await graph.close();
  }
}

describe("the learnings' HNSW indexes follow the vector index", () => {
  test(`${testMode}: dropped beside the in-process index on PGlite only, built again when pgvector searches`, async () => {
    const all = ["agent_playbooks_embedding_hnsw", "user_playbooks_embedding_hnsw"];
    const inProcess = await startWith({ VECTOR_INDEX: "in-process" });
    expect(inProcess.sort()).toEqual(testMode === "embedded" ? all : []);
    expect(await startWith({ VECTOR_INDEX: "pgvector" })).toEqual([]);
  }, 60_000);
});
