import { existsSync, mkdirSync, rmSync } from "node:fs";
import { type Database, DEFAULT_STORAGE_TIMEOUTS, LOCAL_SCOPE, openDatabase } from "@als/db";
import postgres from "postgres";

export type StorageMode = "embedded" | "full";
/** users: the profiles spread over many users; single: one user holds them all. */
export type Shape = "users" | "single";

export interface Corpus {
  texts: readonly string[];
  /** texts.length × dimensions, row-major. */
  vectors: Float32Array;
  dimensions: number;
  modelId: string;
  generatorVersion: string;
}

export interface DatasetSpec {
  mode: StorageMode;
  size: number;
  shape: Shape;
  /** Profiles per user in the `users` shape. */
  perUser: number;
}

export interface SeedTimings {
  insertMillis: number;
  ginMillis: number;
  vacuumMillis: number;
  totalMillis: number;
}

export interface OpenedDataset {
  db: Database;
  /** Where it lives: a PGlite directory or a PostgreSQL database name. */
  location: string;
  /** Null when an earlier run's seeded database was reused; `seededBefore` then holds its timings. */
  seeded: SeedTimings | null;
  seededBefore: SeedTimings | null;
  userIds: string[];
  close(): Promise<void>;
}

export const SINGLE_USER_ID = "bench-user-all";

export function userIdsFor(spec: Pick<DatasetSpec, "size" | "shape" | "perUser">): string[] {
  if (spec.shape === "single") return [SINGLE_USER_ID];
  const users = Math.max(1, Math.ceil(spec.size / spec.perUser));
  return Array.from({ length: users }, (_, index) => `bench-user-${String(index).padStart(6, "0")}`);
}

export const sizeLabel = (size: number): string => (size % 1_000_000 === 0 ? `${size / 1_000_000}m` : size % 1000 === 0 ? `${size / 1000}k` : String(size));

/** Indexes dropped before the bulk load and rebuilt after it (their definitions are read from the catalog). */
const REBUILT_INDEXES = ["profiles_search_text_gin"] as const;

/** Memory for the index builds: the HNSW graph of 100k × 384 needs a few hundred MB to be built in memory. */
const MAINTENANCE_WORK_MEM = "1GB";

const BASE_TIMESTAMP = 1_700_000_000;

/**
 * Opens the benchmark database of `spec`, seeding it unless an earlier run left one seeded from the
 * same corpus, shape and schema (recorded in a `bench_meta` table of that database).
 * embedded: a PGlite directory under `pgliteRoot` (as the embedded server keeps its data on disk);
 * full: the database `bench_profiles_<size>_<shape>` on the server of `postgresUrl`.
 */
export async function openDataset(
  spec: DatasetSpec,
  corpus: Corpus,
  options: { postgresUrl: string; pgliteRoot: string; reseed: boolean; progress: (message: string) => void },
): Promise<OpenedDataset> {
  const { progress } = options;
  const userIds = userIdsFor(spec);
  const name = `bench_profiles_${sizeLabel(spec.size)}_${spec.shape}`;
  // The profiles table's columns and indexes, not the list of migrations: a migration that adds
  // another table leaves a seeded database valid.
  const key = (schema: string) =>
    JSON.stringify({
      generator: corpus.generatorVersion,
      model: corpus.modelId,
      size: spec.size,
      shape: spec.shape,
      perUser: spec.shape === "users" ? spec.perUser : null,
      profilesSchema: Bun.hash(schema).toString(16),
    });

  const opened = await openBenchDatabase(spec.mode, name, options);
  let db = opened.db;
  const { location, fresh, closeExtra } = opened;

  await db.exec(CREATE_META);
  const wanted = key(await profilesSchema(db));
  const [previous] = await db.query<{ timings: string }>("SELECT timings::text AS timings FROM bench_meta WHERE key = $1", [wanted]);
  const [{ n: rows } = { n: 0 }] = await db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM profiles");

  if (previous && rows === spec.size) {
    progress(`${spec.mode} ${sizeLabel(spec.size)} ${spec.shape}: reusing the seeded database ${location}`);
    const timings = JSON.parse(previous.timings) as SeedTimings;
    return {
      db,
      location,
      seeded: null,
      seededBefore: timings,
      userIds,
      close: async () => {
        await db.close();
        await closeExtra();
      },
    };
  }
  if (!fresh) {
    progress(`${spec.mode} ${sizeLabel(spec.size)} ${spec.shape}: ${location} holds another or a partial seeding: recreating it`);
    db = await opened.recreate();
    await db.exec(CREATE_META);
  }

  const timings = await seed(db, spec, corpus, userIds, (message) => progress(`${spec.mode} ${sizeLabel(spec.size)} ${spec.shape}: ${message}`));
  // ::text first: postgres.js would JSON-encode a string bound straight to a jsonb parameter again.
  await db.query("INSERT INTO bench_meta (key, timings) VALUES ($1, $2::text::jsonb)", [wanted, JSON.stringify(timings)]);
  return {
    db,
    location,
    seeded: timings,
    seededBefore: null,
    userIds,
    close: async () => {
      await db.close();
      await closeExtra();
    },
  };
}

interface BenchDatabase {
  db: Database;
  /** A PGlite directory or host/database of the server. */
  location: string;
  /** Created by this call, so nothing in it needs clearing before seeding. */
  fresh: boolean;
  /** Drops and recreates it empty (migrated); the Database returned replaces `db`. */
  recreate(): Promise<Database>;
  /** Closes what the call opened besides `db` (the admin connection of full mode). */
  closeExtra(): Promise<void>;
}

/**
 * Opens (creating it when missing) the benchmark database `name`: a PGlite directory under
 * `pgliteRoot`, or a database of that name on the server of `postgresUrl` (never `als`), migrated.
 * `maxConnections` sizes the pool of full mode (1 unless given).
 */
export async function openBenchDatabase(
  mode: StorageMode,
  name: string,
  options: { postgresUrl: string; pgliteRoot: string; reseed: boolean; maxConnections?: number },
): Promise<BenchDatabase> {
  if (mode === "embedded") {
    const dir = `${options.pgliteRoot}/${name}`;
    if (options.reseed) rmSync(dir, { recursive: true, force: true });
    mkdirSync(options.pgliteRoot, { recursive: true });
    const fresh = !existsSync(dir);
    const opened: BenchDatabase = {
      db: await openDatabase({ kind: "pglite", dataDir: dir }),
      location: dir,
      fresh,
      recreate: async () => {
        await opened.db.close();
        rmSync(dir, { recursive: true, force: true });
        opened.db = await openDatabase({ kind: "pglite", dataDir: dir });
        return opened.db;
      },
      closeExtra: async () => {},
    };
    return opened;
  }
  const admin = postgres(options.postgresUrl, { max: 1, onnotice: () => {} });
  const url = new URL(options.postgresUrl);
  url.pathname = `/${name}`;
  const exists = (await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`).length > 0;
  if (exists && options.reseed) await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
  const fresh = !exists || options.reseed;
  if (fresh) await admin.unsafe(`CREATE DATABASE ${name}`);
  // Building an index over 100k rows takes about a minute, past a request's statement bound.
  const timeouts = { ...DEFAULT_STORAGE_TIMEOUTS, statementMs: 30 * 60_000 };
  const open = () => openDatabase({ kind: "postgres", url: url.toString(), maxConnections: options.maxConnections ?? 1, timeouts });
  const opened: BenchDatabase = {
    db: await open(),
    location: `${url.host}/${name}`,
    fresh,
    recreate: async () => {
      await opened.db.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE ${name}`);
      opened.db = await open();
      return opened.db;
    },
    closeExtra: async () => void (await admin.end()),
  };
  return opened;
}

const CREATE_META = "CREATE TABLE IF NOT EXISTS bench_meta (key text PRIMARY KEY, timings jsonb NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())";

/** The definition of a table as the catalog has it: columns, defaults, generated expressions, indexes. */
async function tableSchema(db: Database, table: string): Promise<string> {
  const [row] = await db.query<{ columns: string | null; indexes: string | null }>(
    `SELECT
       (SELECT string_agg(concat_ws(' ', column_name, udt_name, is_nullable, column_default, generation_expression), ', ' ORDER BY ordinal_position)
          FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1) AS columns,
       (SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1) AS indexes`,
    [table],
  );
  return `${row?.columns ?? ""}\n${row?.indexes ?? ""}`;
}

const profilesSchema = (db: Database) => tableSchema(db, "profiles");

/**
 * Bulk load: drop the GIN index, insert in batches of unnest()ed arrays (one round trip and one
 * statement per batch), rebuild the index from its catalog definition with a large
 * maintenance_work_mem, then VACUUM ANALYZE so the planner has statistics. Profiles have no HNSW
 * index (migration 0051): their searches are one user's, compared exactly.
 */
async function seed(db: Database, spec: DatasetSpec, corpus: Corpus, userIds: string[], progress: (message: string) => void): Promise<SeedTimings> {
  const started = performance.now();
  const definitions = await db.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'profiles' AND indexname = ANY($1::text[])",
    [[...REBUILT_INDEXES]],
  );
  for (const index of REBUILT_INDEXES) {
    if (!definitions.some((d) => d.indexname === index)) throw new Error(`the migrations no longer create ${index}: update bench/lib/seed.ts`);
  }
  await db.exec(`DROP INDEX ${REBUILT_INDEXES.join(", ")}`);
  progress(`dropped ${REBUILT_INDEXES.join(" and ")} for the bulk load; inserting ${spec.size} profiles`);

  const batchSize = 2000;
  const { dimensions } = corpus;
  let lastReport = performance.now();
  for (let start = 0; start < spec.size; start += batchSize) {
    const end = Math.min(start + batchSize, spec.size);
    const ids: string[] = [];
    const users: string[] = [];
    const contents: string[] = [];
    const stamps: number[] = [];
    const embeddings: string[] = [];
    for (let i = start; i < end; i++) {
      ids.push(`bench-profile-${String(i).padStart(7, "0")}`);
      users.push(userIds[i % userIds.length]!);
      contents.push(corpus.texts[i]!);
      stamps.push(BASE_TIMESTAMP + i * 37);
      embeddings.push(vectorText(corpus.vectors, i, dimensions));
    }
    await db.query(
      `INSERT INTO profiles (org_id, project_id, profile_id, user_id, content, source, created_at, last_modified_timestamp, embedding, embedding_model)
       SELECT $1, $2, u.profile_id, u.user_id, u.content, 'bench', u.stamp, u.stamp, u.embedding::vector, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::int8[], $8::text[]) AS u(profile_id, user_id, content, stamp, embedding)`,
      [LOCAL_SCOPE.orgId, LOCAL_SCOPE.projectId, corpus.modelId, ids, users, contents, stamps, embeddings],
    );
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      progress(`inserted ${end}/${spec.size} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  }
  const inserted = performance.now();
  progress(`inserted ${spec.size} profiles in ${((inserted - started) / 1000).toFixed(1)} s; building the GIN index`);

  const ginStarted = performance.now();
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL maintenance_work_mem = '${MAINTENANCE_WORK_MEM}'`);
    await tx.query(definitions.find((d) => d.indexname === "profiles_search_text_gin")!.indexdef);
  });
  const ginMillis = performance.now() - ginStarted;
  const t0 = performance.now();
  await db.exec("VACUUM ANALYZE profiles");
  const vacuumMillis = performance.now() - t0;
  const timings: SeedTimings = {
    insertMillis: inserted - started,
    ginMillis,
    vacuumMillis,
    totalMillis: performance.now() - started,
  };
  progress(`seeded in ${(timings.totalMillis / 1000).toFixed(1)} s`);
  return timings;
}

/** pgvector's text form of one row; 9 significant digits give back the float32 exactly. */
function vectorText(vectors: Float32Array, row: number, dimensions: number): string {
  const parts = new Array<string>(dimensions);
  for (let d = 0; d < dimensions; d++) parts[d] = vectors[row * dimensions + d]!.toPrecision(9);
  return `[${parts.join(",")}]`;
}

// ---------------------------------------------------------------------------------------------
// Learnings of every type: profiles, user playbooks and agent playbooks (bench/unified-search.ts).

export type LearningTable = "profiles" | "user_playbooks" | "agent_playbooks";
export const LEARNING_TABLES: readonly LearningTable[] = ["profiles", "user_playbooks", "agent_playbooks"];

export interface LearningsSpec {
  mode: StorageMode;
  /** Rows of each table. */
  size: number;
  /** Profiles, and user playbooks, per user. */
  perUser: number;
}

export interface TableSeedTimings {
  insertMillis: number;
  /** null: the table has no HNSW index (profiles). */
  hnswMillis: number | null;
  ginMillis: number;
}

export interface LearningsSeedTimings {
  tables: Record<LearningTable, TableSeedTimings>;
  vacuumMillis: number;
  totalMillis: number;
}

export interface OpenedLearnings {
  db: Database;
  location: string;
  seeded: LearningsSeedTimings | null;
  seededBefore: LearningsSeedTimings | null;
  userIds: string[];
  close(): Promise<void>;
}

/** Bump when the row layout below (statuses, users, which text goes where) changes: seeded databases are keyed by it. */
const LEARNINGS_LAYOUT = "learnings-v1";

/**
 * Where a playbook row's fields come from. User playbook i: playbook text i, user i mod users,
 * lifecycle status CURRENT except every 20th PENDING and every 20th (offset 10) ARCHIVED. Agent
 * playbook i: playbook text (i × 7919) mod size (a permutation, so the two tables hold the same texts
 * in another order), approval APPROVED for i mod 10 in {0, 1, 2}, REJECTED for 9, else PENDING;
 * lifecycle ARCHIVED for i mod 10 = 5, else CURRENT. No agent playbook links a source.
 */
export const learningsLayout = {
  userOfRow: (i: number, users: number) => i % users,
  userPlaybookStatus: (i: number) => (i % 20 === 5 ? "PENDING" : i % 20 === 15 ? "ARCHIVED" : "CURRENT"),
  agentPlaybookText: (i: number, size: number) => (i * 7919) % size,
  agentPlaybookApproval: (i: number) => (i % 10 <= 2 ? "APPROVED" : i % 10 === 9 ? "REJECTED" : "PENDING"),
  agentPlaybookStatus: (i: number) => (i % 10 === 5 ? "ARCHIVED" : "CURRENT"),
};

/**
 * Opens the database `bench_learnings_<size>` (a PGlite directory under `pgliteRoot`, or a database
 * on the server of `postgresUrl` with a pool of `maxConnections`), seeding it with `size` rows of
 * each learning table unless an earlier run seeded it from the same corpora, layout and table
 * definitions (recorded in its `bench_meta`). Profiles carry `profiles` texts and vectors, both
 * playbook tables `playbooks` texts and vectors, stored as the playbook's content (trigger and
 * rationale empty, so the stored vector is the one the service computes from trigger and content).
 */
export async function openLearningsDataset(
  spec: LearningsSpec,
  corpora: { profiles: Corpus; playbooks: Corpus },
  options: { postgresUrl: string; pgliteRoot: string; reseed: boolean; maxConnections?: number; progress: (message: string) => void },
): Promise<OpenedLearnings> {
  const label = `${spec.mode} ${sizeLabel(spec.size)}`;
  const progress = (message: string) => options.progress(`${label}: ${message}`);
  const userIds = userIdsFor({ size: spec.size, shape: "users", perUser: spec.perUser });
  const opened = await openBenchDatabase(spec.mode, `bench_learnings_${sizeLabel(spec.size)}`, options);
  let db = opened.db;
  const close = async () => {
    await db.close();
    await opened.closeExtra();
  };
  const wanted = async () =>
    JSON.stringify({
      layout: LEARNINGS_LAYOUT,
      profiles: corpora.profiles.generatorVersion,
      playbooks: corpora.playbooks.generatorVersion,
      model: corpora.profiles.modelId,
      size: spec.size,
      perUser: spec.perUser,
      schema: Bun.hash((await Promise.all([...LEARNING_TABLES, "agent_playbook_sources"].map((table) => tableSchema(db, table)))).join("\n")).toString(16),
    });

  await db.exec(CREATE_META);
  const key = await wanted();
  const [previous] = await db.query<{ timings: string }>("SELECT timings::text AS timings FROM bench_meta WHERE key = $1", [key]);
  const counts = await Promise.all(LEARNING_TABLES.map(async (table) => (await db.query<{ n: number }>(`SELECT count(*)::int8 AS n FROM ${table}`))[0]!.n));
  if (previous && counts.every((n) => n === spec.size)) {
    progress(`reusing the seeded database ${opened.location}`);
    return { db, location: opened.location, seeded: null, seededBefore: JSON.parse(previous.timings) as LearningsSeedTimings, userIds, close };
  }
  if (!opened.fresh) {
    progress(`${opened.location} holds another or a partial seeding: recreating it`);
    db = await opened.recreate();
    await db.exec(CREATE_META);
  }

  const started = performance.now();
  const { dimensions } = corpora.profiles;
  const stamp = (i: number) => BASE_TIMESTAMP + i * 37;
  const scope = [LOCAL_SCOPE.orgId, LOCAL_SCOPE.projectId, corpora.profiles.modelId] as const;
  const tables = {} as Record<LearningTable, TableSeedTimings>;

  tables.profiles = await bulkLoad(db, "profiles", spec.size, progress, async (start, end) => {
    const rows = range(start, end);
    await db.query(
      `INSERT INTO profiles (org_id, project_id, profile_id, user_id, content, source, created_at, last_modified_timestamp, embedding, embedding_model)
       SELECT $1, $2, u.profile_id, u.user_id, u.content, 'bench', u.stamp, u.stamp, u.embedding::vector, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::int8[], $8::text[]) AS u(profile_id, user_id, content, stamp, embedding)`,
      [
        ...scope,
        rows.map((i) => `bench-profile-${String(i).padStart(7, "0")}`),
        rows.map((i) => userIds[learningsLayout.userOfRow(i, userIds.length)]!),
        rows.map((i) => corpora.profiles.texts[i]!),
        rows.map(stamp),
        rows.map((i) => vectorText(corpora.profiles.vectors, i, dimensions)),
      ],
    );
  });
  tables.user_playbooks = await bulkLoad(db, "user_playbooks", spec.size, progress, async (start, end) => {
    const rows = range(start, end);
    await db.query(
      `INSERT INTO user_playbooks (org_id, project_id, user_id, agent_version, content, status, source, created_at, last_modified_timestamp, embedding, embedding_model)
       SELECT $1, $2, u.user_id, 'agent-v1', u.content, u.status, 'bench', u.stamp, u.stamp, u.embedding::vector, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::int8[], $8::text[]) WITH ORDINALITY AS u(user_id, content, status, stamp, embedding, n)
       ORDER BY u.n`,
      [
        ...scope,
        rows.map((i) => userIds[learningsLayout.userOfRow(i, userIds.length)]!),
        rows.map((i) => corpora.playbooks.texts[i]!),
        rows.map(learningsLayout.userPlaybookStatus),
        rows.map(stamp),
        rows.map((i) => vectorText(corpora.playbooks.vectors, i, dimensions)),
      ],
    );
  });
  tables.agent_playbooks = await bulkLoad(db, "agent_playbooks", spec.size, progress, async (start, end) => {
    const rows = range(start, end);
    const text = (i: number) => learningsLayout.agentPlaybookText(i, spec.size);
    await db.query(
      `INSERT INTO agent_playbooks (org_id, project_id, agent_version, content, playbook_status, status, created_at, last_modified_timestamp, embedding, embedding_model)
       SELECT $1, $2, 'agent-v1', u.content, u.approval, u.status, u.stamp, u.stamp, u.embedding::vector, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::int8[], $8::text[]) WITH ORDINALITY AS u(content, approval, status, stamp, embedding, n)
       ORDER BY u.n`,
      [
        ...scope,
        rows.map((i) => corpora.playbooks.texts[text(i)]!),
        rows.map(learningsLayout.agentPlaybookApproval),
        rows.map(learningsLayout.agentPlaybookStatus),
        rows.map(stamp),
        rows.map((i) => vectorText(corpora.playbooks.vectors, text(i), dimensions)),
      ],
    );
  });
  const t0 = performance.now();
  await db.exec(`VACUUM ANALYZE ${LEARNING_TABLES.join(", ")}`);
  const timings: LearningsSeedTimings = { tables, vacuumMillis: performance.now() - t0, totalMillis: performance.now() - started };
  progress(`seeded in ${(timings.totalMillis / 1000).toFixed(1)} s`);
  await db.query("INSERT INTO bench_meta (key, timings) VALUES ($1, $2::text::jsonb)", [key, JSON.stringify(timings)]);
  return { db, location: opened.location, seeded: timings, seededBefore: null, userIds, close };
}

const range = (start: number, end: number) => Array.from({ length: end - start }, (_, k) => start + k);

/**
 * Bulk load of one table: drop its GIN index and its HNSW index (profiles have none), insert `size`
 * rows in batches of 2000 (`insert(start, end)`), then rebuild them from their catalog definitions
 * with a large maintenance_work_mem.
 */
async function bulkLoad(
  db: Database,
  table: LearningTable,
  size: number,
  progress: (message: string) => void,
  insert: (start: number, end: number) => Promise<void>,
): Promise<TableSeedTimings> {
  const [hnsw, gin] = [`${table}_embedding_hnsw`, `${table}_search_text_gin`];
  const definitions = await db.query<{ indexname: string; indexdef: string }>(
    "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 AND indexname = ANY($2::text[])",
    [table, [hnsw, gin]],
  );
  if (!definitions.some((d) => d.indexname === gin)) throw new Error(`the migrations no longer create ${gin}: update bench/lib/seed.ts`);
  await db.exec(`DROP INDEX ${definitions.map((d) => d.indexname).join(", ")}`);
  const started = performance.now();
  let lastReport = started;
  for (let start = 0; start < size; start += 2000) {
    await insert(start, Math.min(start + 2000, size));
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      progress(`${table}: inserted ${Math.min(start + 2000, size)}/${size}`);
    }
  }
  const insertMillis = performance.now() - started;
  const build = async (index: string) => {
    const definition = definitions.find((d) => d.indexname === index);
    if (!definition) return null;
    const t0 = performance.now();
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL maintenance_work_mem = '${MAINTENANCE_WORK_MEM}'`);
      await tx.query(definition.indexdef);
    });
    return performance.now() - t0;
  };
  const hnswMillis = await build(hnsw);
  const ginMillis = (await build(gin))!;
  const hnswNote = hnswMillis === null ? "no HNSW index" : `HNSW built in ${(hnswMillis / 1000).toFixed(1)} s`;
  progress(`${table}: ${size} rows inserted in ${(insertMillis / 1000).toFixed(1)} s, ${hnswNote}, GIN in ${(ginMillis / 1000).toFixed(1)} s`);
  return { insertMillis, hnswMillis, ginMillis };
}

/** The server URL that `bash infra/postgres.sh url` prints (any database on it: the benches create their own). */
export function postgresServerUrl(root: string): string {
  const result = Bun.spawnSync(["bash", `${root}/infra/postgres.sh`, "url"], { stdout: "pipe", stderr: "pipe" });
  const url = result.stdout.toString().trim();
  if (result.exitCode !== 0 || !url.startsWith("postgres")) {
    throw new Error(
      `bash infra/postgres.sh url failed (${result.exitCode}): ${result.stderr.toString().trim()}; start it (bash infra/postgres.sh start) or pass --postgres-url`,
    );
  }
  return url;
}
