// Types of average-linkage-exact.mjs for TypeScript files under the root config, which does not read JavaScript.
export function averageLinkageExact(vectors: Float32Array, dims: number, threshold: number, minClusterSize: number): Int32Array;
