import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import type { Embedder } from "@als/ai";

/** What the vectors on disk were made from; any difference and they are recomputed. */
interface CacheMeta {
  generatorVersion: string;
  modelId: string;
  dimensions: number;
  /** Vectors in the file: the first `count` texts of the generator, in order. */
  count: number;
  /** Hash of those texts, so a changed generator without a version bump is still noticed. */
  textsHash: string;
  /** Time spent embedding them, summed over the runs that did (absent in older files). */
  embedMillis?: number;
}

export interface VectorCacheResult {
  /** The first `count` texts of the generator. */
  texts: string[];
  /** count × dimensions, row-major, as the model produced them (float32). */
  vectors: Float32Array;
  /** Vectors computed by this call (0 when all came from disk). */
  embedded: number;
  embedMillis: number;
  /** Embedding time of every vector in the file, including earlier runs'. */
  totalEmbedMillis: number;
  path: string;
}

const hashTexts = (texts: readonly string[]): string => Bun.hash(texts.join("\n")).toString(16);

/**
 * The first `count` texts of `generate` and their embeddings, read from `<dir>/<name>.f32` (+ `.json`)
 * and completed with the embedder where the file holds fewer. The n-th text of the generator never
 * changes, so the file only grows; it is appended chunk by chunk, so an interrupted run keeps what
 * it computed.
 */
export async function cachedEmbeddings(
  embedder: Embedder,
  count: number,
  generate: (count: number) => string[],
  options: { dir: string; generatorVersion: string; progress: (message: string) => void; chunk?: number },
): Promise<VectorCacheResult> {
  const { dir, generatorVersion, progress } = options;
  const dimensions = embedder.dimensions;
  mkdirSync(dir, { recursive: true });
  const base = `${dir}/profile-vectors-${generatorVersion}-${embedder.modelId}`;
  const dataPath = `${base}.f32`;
  const metaPath = `${base}.json`;
  const rowBytes = dimensions * 4;

  let have = 0;
  let earlierMillis = 0;
  let texts = generate(count);
  if (existsSync(metaPath) && existsSync(dataPath)) {
    const meta = JSON.parse(readFileSync(metaPath, "utf8")) as CacheMeta;
    if (meta.count > texts.length) texts = generate(meta.count);
    const usable =
      meta.generatorVersion === generatorVersion &&
      meta.modelId === embedder.modelId &&
      meta.dimensions === dimensions &&
      Bun.file(dataPath).size >= meta.count * rowBytes &&
      meta.textsHash === hashTexts(texts.slice(0, meta.count));
    if (usable) {
      have = meta.count;
      earlierMillis = meta.embedMillis ?? 0;
    } else progress(`vector cache ${dataPath} does not match (generator, model or texts changed): recomputing`);
  }
  if (have === 0) rmSync(dataPath, { force: true });

  const started = performance.now();
  let embedded = 0;
  if (have < count) {
    const chunkSize = options.chunk ?? 2048;
    const fd = openSync(dataPath, have === 0 ? "w" : "r+");
    try {
      // Anything past the last recorded chunk is a torn write of an interrupted run.
      ftruncateSync(fd, have * rowBytes);
      for (let start = have; start < count; start += chunkSize) {
        const batch = texts.slice(start, Math.min(start + chunkSize, count));
        const vectors = await embedder.embedDocuments(batch);
        const buffer = new Float32Array(batch.length * dimensions);
        for (const [row, vector] of vectors.entries()) buffer.set(vector, row * dimensions);
        writeSync(fd, new Uint8Array(buffer.buffer), 0, buffer.byteLength, start * rowBytes);
        const done = start + batch.length;
        embedded += batch.length;
        const meta: CacheMeta = {
          generatorVersion,
          modelId: embedder.modelId,
          dimensions,
          count: done,
          textsHash: hashTexts(texts.slice(0, done)),
          embedMillis: earlierMillis + (performance.now() - started),
        };
        writeFileSync(metaPath, JSON.stringify(meta));
        const elapsed = (performance.now() - started) / 1000;
        const rate = embedded / elapsed;
        progress(`embedded ${done}/${count} profile texts (${rate.toFixed(0)}/s, ~${((count - done) / rate).toFixed(0)} s left)`);
      }
    } finally {
      closeSync(fd);
    }
  }
  const embedMillis = performance.now() - started;

  const bytes = readFileSync(dataPath);
  const vectors = new Float32Array(bytes.buffer, bytes.byteOffset, count * dimensions).slice();
  return { texts: texts.slice(0, count), vectors, embedded, embedMillis, totalEmbedMillis: earlierMillis + embedMillis, path: dataPath };
}
