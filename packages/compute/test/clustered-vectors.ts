import { seededRandom } from "../src/clustering/vectors.mjs";

/**
 * `groups` tight groups of `perGroup` noisy copies of random unit directions, then `singletons`
 * lone random unit vectors, all normalized; rows shuffled so groups are not contiguous. In 64
 * dimensions random directions are nearly orthogonal (|cos| ≲ 0.4), while copies with noise of length 0.3
 * are about 0.92 similar to each other.
 */
export function clusteredVectors(options: { groups: number; perGroup: number; singletons: number; dims: number; seed: number; noise?: number }) {
  const { groups, perGroup, singletons, dims, seed, noise = 0.3 } = options;
  const random = seededRandom(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const unit = (values: number[]) => {
    const norm = Math.hypot(...values);
    return values.map((value) => value / norm);
  };
  const rows: { vector: number[]; group: number }[] = [];
  for (let group = 0; group < groups; group++) {
    const center = unit(Array.from({ length: dims }, gaussian));
    for (let i = 0; i < perGroup; i++) rows.push({ vector: unit(center.map((value) => value + (noise / Math.sqrt(dims)) * gaussian())), group });
  }
  for (let i = 0; i < singletons; i++) rows.push({ vector: unit(Array.from({ length: dims }, gaussian)), group: -1 });
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j]!, rows[i]!];
  }
  const vectors = new Float32Array(rows.length * dims);
  for (const [index, row] of rows.entries()) vectors.set(row.vector, index * dims);
  return { vectors, groupOfRow: rows.map((row) => row.group) };
}
