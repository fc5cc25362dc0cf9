import { existsSync, mkdirSync, rmSync } from "node:fs";
import { LOCAL_SCOPE, openDatabase, type Database } from "@als/db";
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
  hnswMillis: number;
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

export const sizeLabel = (size: number): string =>
  size % 1_000_000 === 0 ? `${size / 1_000_000}m` : size % 1000 === 0 ? `${size / 1000}k` : String(size);

/** Indexes dropped before the bulk load and rebuilt after it (their definitions are read from the catalog). */
const REBUILT_INDEXES = ["profiles_embedding_hnsw", "profiles_search_text_gin"] as const;

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

  let db: Database;
  let location: string;
  let dropExisting: () => Promise<void>;
  let closeExtra = async () => {};
  /** Created by this call, so nothing in it needs clearing before seeding. */
  let fresh: boolean;

  if (spec.mode === "embedded") {
    location = `${options.pgliteRoot}/${name}`;
    const dir = location;
    dropExisting = async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
      db = await openDatabase({ kind: "pglite", dataDir: dir });
    };
    if (options.reseed) rmSync(dir, { recursive: true, force: true });
    mkdirSync(options.pgliteRoot, { recursive: true });
    fresh = !existsSync(dir);
    db = await openDatabase({ kind: "pglite", dataDir: dir });
  } else {
    const admin = postgres(options.postgresUrl, { max: 1, onnotice: () => {} });
    const url = new URL(options.postgresUrl);
    url.pathname = `/${name}`;
    location = `${url.host}/${name}`;
    const exists = (await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`).length > 0;
    if (exists && options.reseed) await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
    fresh = !exists || options.reseed;
    if (fresh) await admin.unsafe(`CREATE DATABASE ${name}`);
    // One connection: the benchmark runs queries one at a time, and session settings then hold.
    db = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 1 });
    dropExisting = async () => {
      await db.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE ${name}`);
      db = await openDatabase({ kind: "postgres", url: url.toString(), maxConnections: 1 });
    };
    closeExtra = async () => void (await admin.end());
  }

  await db.exec(CREATE_META);
  const wanted = key(await profilesSchema(db));
  const [previous] = await db.query<{ timings: string }>("SELECT timings::text AS timings FROM bench_meta WHERE key = $1", [wanted]);
  const [{ n: rows } = { n: 0 }] = await db.query<{ n: number }>("SELECT count(*)::int8 AS n FROM profiles");

  if (previous && rows === spec.size) {
    progress(`${spec.mode} ${sizeLabel(spec.size)} ${spec.shape}: reusing the seeded database ${location}`);
    const timings = JSON.parse(previous.timings) as SeedTimings;
    return { db, location, seeded: null, seededBefore: timings, userIds, close: async () => (await db.close(), await closeExtra()) };
  }
  if (!fresh) {
    progress(`${spec.mode} ${sizeLabel(spec.size)} ${spec.shape}: ${location} holds another or a partial seeding: recreating it`);
    await dropExisting();
    await db.exec(CREATE_META);
  }

  const timings = await seed(db, spec, corpus, userIds, (message) => progress(`${spec.mode} ${sizeLabel(spec.size)} ${spec.shape}: ${message}`));
  // ::text first: postgres.js would JSON-encode a string bound straight to a jsonb parameter again.
  await db.query("INSERT INTO bench_meta (key, timings) VALUES ($1, $2::text::jsonb)", [wanted, JSON.stringify(timings)]);
  return { db, location, seeded: timings, seededBefore: null, userIds, close: async () => (await db.close(), await closeExtra()) };
}

const CREATE_META = "CREATE TABLE IF NOT EXISTS bench_meta (key text PRIMARY KEY, timings jsonb NOT NULL, seeded_at timestamptz NOT NULL DEFAULT now())";

/** The definition of the profiles table as the catalog has it: columns, defaults, generated expressions, indexes. */
async function profilesSchema(db: Database): Promise<string> {
  const [row] = await db.query<{ columns: string | null; indexes: string | null }>(
    `SELECT
       (SELECT string_agg(concat_ws(' ', column_name, udt_name, is_nullable, column_default, generation_expression), ', ' ORDER BY ordinal_position)
          FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'profiles') AS columns,
       (SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'profiles') AS indexes`,
  );
  return `${row?.columns ?? ""}\n${row?.indexes ?? ""}`;
}

/**
 * Bulk load: drop the HNSW and GIN indexes, insert in batches of unnest()ed arrays (one round trip
 * and one statement per batch), rebuild both indexes from their catalog definitions with a large
 * maintenance_work_mem, then VACUUM ANALYZE so the planner has statistics.
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
  progress(`inserted ${spec.size} profiles in ${((inserted - started) / 1000).toFixed(1)} s; building the HNSW index`);

  const build = async (index: (typeof REBUILT_INDEXES)[number]) => {
    const t0 = performance.now();
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL maintenance_work_mem = '${MAINTENANCE_WORK_MEM}'`);
      await tx.query(definitions.find((d) => d.indexname === index)!.indexdef);
    });
    return performance.now() - t0;
  };
  const hnswMillis = await build("profiles_embedding_hnsw");
  progress(`built profiles_embedding_hnsw in ${(hnswMillis / 1000).toFixed(1)} s; building the GIN index`);
  const ginMillis = await build("profiles_search_text_gin");
  const t0 = performance.now();
  await db.exec("VACUUM ANALYZE profiles");
  const vacuumMillis = performance.now() - t0;
  const timings: SeedTimings = {
    insertMillis: inserted - started,
    hnswMillis,
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
