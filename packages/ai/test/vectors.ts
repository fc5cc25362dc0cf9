/** Cosine similarity of two unit vectors. */
export function dot(a: readonly number[], b: readonly number[]): number {
  return a.reduce((sum, value, index) => sum + value * b[index]!, 0);
}

export function norm(vector: readonly number[]): number {
  return Math.sqrt(dot(vector, vector));
}
