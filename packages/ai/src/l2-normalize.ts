/** The vector scaled to unit length, so that a dot product is the cosine similarity. */
export function l2Normalize(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  if (norm === 0 || !Number.isFinite(norm)) throw new Error("cannot normalize a zero or non-finite vector");
  return vector.map((value) => value / norm);
}
