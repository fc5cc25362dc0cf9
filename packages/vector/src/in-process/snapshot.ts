import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "@als/db";
import type { Collection } from "../collections.ts";
import { Partition, type PartitionPoints } from "./partition.ts";

/** Bumped when the files change shape: an older snapshot is then rebuilt from the record, not misread. */
const SNAPSHOT_VERSION = 2;
const CURRENT = "CURRENT";

export interface PartitionRef {
  collection: Collection;
  scope: Scope;
}

interface Manifest {
  version: number;
  /** What the owner of the index recorded with it (which database, how far it had followed it). */
  meta: unknown;
  partitions: (PartitionRef & { file: string; size: number })[];
}

export interface Snapshot {
  meta: unknown;
  partitions: { ref: PartitionRef; partition: Partition }[];
}

/**
 * The index on disk: each save is a new generation directory holding every partition (a graph file
 * and a points file each; an unchanged partition is hard-linked from the generation before) and a
 * manifest, and becomes the snapshot when the CURRENT file, renamed into place, names it. A process
 * killed in the middle leaves the generation before as the snapshot.
 */
export function saveSnapshot(directory: string, meta: unknown, partitions: { ref: PartitionRef; partition: Partition }[]): void {
  mkdirSync(directory, { recursive: true });
  const previousGeneration = currentGeneration(directory);
  const previous =
    previousGeneration === null ? null : { path: join(directory, previousGeneration), manifest: readManifest(join(directory, previousGeneration)) };
  const generation = `gen-${Date.now()}-${process.pid}`;
  const target = join(directory, generation);
  mkdirSync(target);
  const manifest: Manifest = { version: SNAPSHOT_VERSION, meta, partitions: [] };
  for (const [n, { ref, partition }] of partitions.entries()) {
    const file = `${ref.collection}-${n}`;
    const reused = !partition.dirty && previous !== null && reuseFiles(previous, target, file, ref);
    if (!reused) {
      const { points, vectors } = partition.save(join(target, `${file}.usearch`));
      writeFileSync(join(target, `${file}.f32`), vectors);
      writeFileSync(join(target, `${file}.json`), JSON.stringify(points));
    }
    manifest.partitions.push({ ...ref, file, size: partition.size });
  }
  writeDurably(join(target, "manifest.json"), JSON.stringify(manifest));
  writeDurably(join(directory, `${CURRENT}.tmp`), generation);
  renameSync(join(directory, `${CURRENT}.tmp`), join(directory, CURRENT));
  for (const entry of readdirSync(directory))
    if (entry.startsWith("gen-") && entry !== generation) rmSync(join(directory, entry), { recursive: true, force: true });
}

/** The snapshot in `directory`, or null when there is none (or one of another version). */
export function loadSnapshot(directory: string): Snapshot | null {
  const generation = currentGeneration(directory);
  if (generation === null) return null;
  const source = join(directory, generation);
  const manifest = readManifest(source);
  if (manifest.version !== SNAPSHOT_VERSION) return null;
  return {
    meta: manifest.meta,
    partitions: manifest.partitions.map(({ collection, scope, file }) => {
      const saved = JSON.parse(readFileSync(join(source, `${file}.json`), "utf8")) as PartitionPoints;
      // Copied out of the file's buffer, which need not start at a multiple of 4 bytes.
      const bytes = readFileSync(join(source, `${file}.f32`));
      const vectors = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      return { ref: { collection, scope }, partition: Partition.load(join(source, `${file}.usearch`), saved, vectors) };
    }),
  };
}

function readManifest(generationPath: string): Manifest {
  return JSON.parse(readFileSync(join(generationPath, "manifest.json"), "utf8")) as Manifest;
}

function currentGeneration(directory: string): string | null {
  const pointer = join(directory, CURRENT);
  return existsSync(pointer) ? readFileSync(pointer, "utf8").trim() : null;
}

/** Links the previous generation's files of the same partition into the new one; false when it had none. */
function reuseFiles(from: { path: string; manifest: Manifest }, to: string, file: string, ref: PartitionRef): boolean {
  const before = from.manifest.partitions.find(
    (p) => p.collection === ref.collection && p.scope.orgId === ref.scope.orgId && p.scope.projectId === ref.scope.projectId,
  );
  if (!before) return false;
  for (const extension of [".usearch", ".f32", ".json"]) linkSync(join(from.path, `${before.file}${extension}`), join(to, `${file}${extension}`));
  return true;
}

function writeDurably(path: string, text: string): void {
  writeFileSync(path, text);
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
