import { randomUUID } from "node:crypto";
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "@als/db";
import type { Collection } from "../collections.ts";
import type { GraphThread } from "./graph-thread.ts";
import { Partition, type PartitionPoints } from "./partition.ts";

/**
 * Bumped when the files change shape: a snapshot of a version not readable here is then rebuilt
 * from the record, not misread. 3: the graphs hold 8-bit vectors (half-precision before). 4: a
 * partition may have no graph file (`graph: false`); a version 3 snapshot, whose partitions all have
 * one, is read too.
 */
const SNAPSHOT_VERSION = 4;
const READABLE_VERSIONS = [3, SNAPSHOT_VERSION];
const CURRENT = "CURRENT";

export interface PartitionRef {
  collection: Collection;
  scope: Scope;
}

interface Manifest {
  version: number;
  /** What the owner of the index recorded with it (which database, how far it had followed it). */
  meta: unknown;
  /** `graph` absent (version 3): the partition has a graph file. */
  partitions: (PartitionRef & { file: string; size: number; graph?: boolean })[];
}

export interface Snapshot {
  meta: unknown;
  partitions: { ref: PartitionRef; partition: Partition }[];
}

/** A partition's files: its graph's (when it has one), its vectors' and its points'. */
const fileExtensions = (partition: Partition) => (partition.hasGraph ? [".usearch", ".f32", ".json"] : [".f32", ".json"]);

/**
 * The index on disk: each save is a new generation directory holding every partition (a graph
 * file, its vectors and its points each; a partition unchanged since it was last saved or loaded
 * links its files from there, Partition.files) and a manifest, and becomes the snapshot when the CURRENT file,
 * renamed into place, names it. A process killed in the middle leaves the generation before as the
 * snapshot.
 */
export function saveSnapshot(directory: string, meta: unknown, partitions: { ref: PartitionRef; partition: Partition }[]): void {
  mkdirSync(directory, { recursive: true });
  const generation = `gen-${Date.now()}-${randomUUID()}`;
  const target = join(directory, generation);
  mkdirSync(target);
  const manifest: Manifest = { version: SNAPSHOT_VERSION, meta, partitions: [] };
  for (const [n, { ref, partition }] of partitions.entries()) {
    const file = join(target, `${ref.collection}-${n}`);
    const before = partition.files;
    const extensions = fileExtensions(partition);
    if (!partition.dirty && before !== undefined && extensions.every((extension) => existsSync(`${before}${extension}`))) {
      for (const extension of extensions) linkSync(`${before}${extension}`, `${file}${extension}`);
    } else {
      const { points, vectors } = partition.save(`${file}.usearch`);
      writeFileSync(`${file}.f32`, vectors);
      writeFileSync(`${file}.json`, JSON.stringify(points));
    }
    partition.files = file;
    manifest.partitions.push({ ...ref, file: `${ref.collection}-${n}`, size: partition.size, graph: partition.hasGraph });
  }
  writeDurably(join(target, "manifest.json"), JSON.stringify(manifest));
  writeDurably(join(directory, `${CURRENT}.tmp`), generation);
  renameSync(join(directory, `${CURRENT}.tmp`), join(directory, CURRENT));
  for (const entry of readdirSync(directory))
    if (entry.startsWith("gen-") && entry !== generation) rmSync(join(directory, entry), { recursive: true, force: true });
}

/**
 * The snapshot in `directory`, the graphs of the collections `graphed` names loaded into `thread`
 * (another collection's saved graph is left unread), or null when there is none, one of a version
 * not readable here, or one without a graph a partition needs.
 */
export function loadSnapshot(directory: string, thread: GraphThread, graphed: (collection: Collection) => boolean): Snapshot | null {
  const generation = currentGeneration(directory);
  if (generation === null) return null;
  const source = join(directory, generation);
  const manifest = readManifest(source);
  if (!READABLE_VERSIONS.includes(manifest.version)) return null;
  if (manifest.partitions.some((entry) => graphed(entry.collection) && entry.graph === false)) return null;
  return {
    meta: manifest.meta,
    partitions: manifest.partitions.map(({ collection, scope, file }) => {
      const saved = JSON.parse(readFileSync(join(source, `${file}.json`), "utf8")) as PartitionPoints;
      // Partition.load copies each point's vector out, so the file's buffer is read in place where it
      // starts at a multiple of 4 bytes, and copied only where it does not (a small file's buffer
      // may be a slice of a shared pool).
      const bytes = readFileSync(join(source, `${file}.f32`));
      const vectors =
        bytes.byteOffset % Float32Array.BYTES_PER_ELEMENT === 0
          ? new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / Float32Array.BYTES_PER_ELEMENT)
          : new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      const partition = Partition.load(graphed(collection) ? thread : null, join(source, `${file}.usearch`), saved, vectors);
      partition.files = join(source, file);
      return { ref: { collection, scope }, partition };
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

function writeDurably(path: string, text: string): void {
  writeFileSync(path, text);
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
