// @ts-check
// Plain JavaScript, shared by the worker tasks and the main thread (see ../tasks/embed-texts.mjs).

/**
 * Dot product of rows a and b of a row-major matrix: the cosine similarity of two unit vectors.
 * Every similarity of the clustering, exact or approximate, comes from here, so both see the
 * same float for the same pair. Four accumulators let the engine overlap the multiplications.
 * @param {Float32Array} vectors @param {number} dims @param {number} a @param {number} b
 */
export function dot(vectors, dims, a, b) {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = a * dims;
  let j = b * dims;
  const end = i + dims - (dims % 4);
  for (; i < end; i += 4, j += 4) {
    s0 += /** @type {number} */ (vectors[i]) * /** @type {number} */ (vectors[j]);
    s1 += /** @type {number} */ (vectors[i + 1]) * /** @type {number} */ (vectors[j + 1]);
    s2 += /** @type {number} */ (vectors[i + 2]) * /** @type {number} */ (vectors[j + 2]);
    s3 += /** @type {number} */ (vectors[i + 3]) * /** @type {number} */ (vectors[j + 3]);
  }
  for (const stop = a * dims + dims; i < stop; i++, j++) s0 += /** @type {number} */ (vectors[i]) * /** @type {number} */ (vectors[j]);
  return s0 + s1 + s2 + s3;
}

/**
 * mulberry32: a small seeded PRNG, so hyperplanes and samples are the same on every run.
 * @param {number} seed @returns {() => number} uniform in [0, 1)
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
