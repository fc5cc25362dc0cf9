// Types of vectors.mjs for TypeScript files under the root config, which does not read JavaScript.
export function dot(vectors: Float32Array, dims: number, a: number, b: number): number;
export function seededRandom(seed: number): () => number;
