import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openPglite } from "./drivers/pglite.ts";
import { migrate, migrationsDigest } from "./migrate.ts";

/**
 * Where the dump of a migrated, empty PGlite database is kept between processes: beside the
 * embedding models, relative to the working directory as they are.
 */
const TEMPLATE_DIR = resolve(".cache/pglite");

/**
 * A new PGlite runs initdb in WebAssembly and then every migration, 8–9 s on two cores; one loaded
 * from a dump of a migrated, empty database is ready in about 1.4 s. Every fresh database (a new
 * data directory, an in-memory database of the tests and benchmarks) starts from such a dump: the
 * first process on a machine makes it and keeps it under .cache/pglite for the processes after it,
 * named for the PGlite build and the migrations it holds, so an upgrade or a new migration makes a
 * new one. The dump is taken before anything but the schema is written: it holds no data, no key
 * and no secret.
 *
 * It is kept as the plain tar PGlite loads (44 MB): read back in tens of milliseconds, where
 * unpacking a gzipped copy (5.5 MB) took 0.7–1 s of CPU in every process that started from it.
 */
export async function migratedTemplate(dir = TEMPLATE_DIR): Promise<Blob> {
  const file = join(dir, `${await templateKey()}.tar`);
  const kept = await readFile(file).catch(() => undefined);
  if (kept && wholeTar(kept)) return new Blob([kept]);
  const made = await makeTemplate();
  await keep(file, made);
  return made;
}

/**
 * Whether `bytes` look like a whole tar archive: 512-byte blocks, a ustar header first and the two
 * zero blocks that end an archive. A file cut short or overwritten by a disk fault fails this and
 * is made again; PGlite, given something that is not a tar, fails outside any promise its caller
 * could catch.
 */
export function wholeTar(bytes: Uint8Array): boolean {
  if (bytes.byteLength < 3 * 512 || bytes.byteLength % 512 !== 0) return false;
  if (new TextDecoder().decode(bytes.subarray(257, 262)) !== "ustar") return false;
  return bytes.subarray(bytes.byteLength - 1024).every((byte) => byte === 0);
}

/** Forgets a kept dump that PGlite could not load (a disk fault), so the next call makes it again. */
export async function discardTemplate(dir = TEMPLATE_DIR): Promise<void> {
  await rm(join(dir, `${await templateKey()}.tar`), { force: true });
}

async function makeTemplate(): Promise<Blob> {
  const db = await openPglite({});
  try {
    await migrate(db);
    return await db.dumpDataDir();
  } finally {
    await db.close();
  }
}

/**
 * Written under a new name and renamed, so a process never reads another's half-written dump; the
 * dumps of earlier migrations or PGlite builds go then, so the directory holds one.
 */
async function keep(file: string, dump: Blob): Promise<void> {
  const partial = `${file}.${randomUUID()}.partial`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(partial, new Uint8Array(await dump.arrayBuffer()));
    await rename(partial, file);
    for (const name of await readdir(dirname(file))) {
      // Earlier builds kept theirs gzipped (.tar.gz).
      if (/^[0-9a-f]{16}\.tar(\.gz)?$/.test(name) && name !== basename(file)) await rm(join(dirname(file), name), { force: true });
    }
  } catch {
    // A read-only working directory: each fresh database makes its own.
    await rm(partial, { force: true }).catch(() => {});
  }
}

async function templateKey(): Promise<string> {
  const hash = createHash("sha256").update(await migrationsDigest());
  for (const name of ["@electric-sql/pglite", "@electric-sql/pglite-pgvector"]) hash.update(await packageVersion(name));
  return hash.digest("hex").slice(0, 16);
}

/** The installed version of a package (its exports do not include package.json). */
async function packageVersion(name: string): Promise<string> {
  let dir = dirname(fileURLToPath(import.meta.resolve(name)));
  for (;;) {
    const text = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
    const manifest = text ? (JSON.parse(text) as { name?: string; version?: string }) : undefined;
    if (manifest?.name === name) return `${name}@${manifest.version}`;
    if (dirname(dir) === dir) return name;
    dir = dirname(dir);
  }
}
