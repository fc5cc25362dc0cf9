// @ts-check
// Worker-thread task: the LSH codes of a block of rows (see ../clustering/plan-lsh.mjs).
import "./exit-on-pool-close.mjs";
import { rotationDims } from "../clustering/plan-lsh.mjs";
import { seededRandom } from "../clustering/vectors.mjs";

/**
 * @typedef {object} HashRowsInput
 * @property {Float32Array} vectors rows × dims on a SharedArrayBuffer, read by every task
 * @property {number} dims
 * @property {number} firstRow
 * @property {number} endRow exclusive
 * @property {number} bitsPerTable
 * @property {number} tables
 * @property {number} seed
 * @property {Int32Array} codes rows × tables on a SharedArrayBuffer; this task writes its rows
 */

/**
 * Writes codes[row × tables + t] = the bitsPerTable sign bits of table t. The hyperplanes are the
 * rows of pseudo-random rotations H·D₃·H·D₂·H·D₁ (H the Walsh–Hadamard transform, Dᵢ random ±1
 * diagonals; Andoni et al. 2015, as in FALCONN): each coordinate's sign behaves like the sign of a
 * random Gaussian projection, one rotation gives rotationDims(dims) bits in O(d log d) instead of
 * O(d²), and hyperplanes within a rotation are orthogonal, which only lowers the variance of the
 * collision counts (super-bit LSH).
 * @param {HashRowsInput} input
 * @returns {null}
 */
export default function hashRows({ vectors, dims, firstRow, endRow, bitsPerTable, tables, seed, codes }) {
  const width = rotationDims(dims);
  const rotations = Math.ceil((bitsPerTable * tables) / width);
  const random = seededRandom(seed);
  const signs = Float64Array.from({ length: rotations * 3 * width }, () => (random() < 0.5 ? -1 : 1));
  const rotated = new Float64Array(width);
  const bits = new Uint8Array(rotations * width);
  for (let row = firstRow; row < endRow; row++) {
    for (let rotation = 0; rotation < rotations; rotation++) {
      rotated.fill(0);
      for (let d = 0; d < dims; d++) rotated[d] = /** @type {number} */ (vectors[row * dims + d]);
      for (let round = 0; round < 3; round++) {
        const offset = (rotation * 3 + round) * width;
        for (let d = 0; d < width; d++) rotated[d] = /** @type {number} */ (rotated[d]) * /** @type {number} */ (signs[offset + d]);
        walshHadamard(rotated);
      }
      for (let d = 0; d < width; d++) bits[rotation * width + d] = /** @type {number} */ (rotated[d]) >= 0 ? 1 : 0;
    }
    for (let table = 0; table < tables; table++) {
      let code = 0;
      for (let bit = 0; bit < bitsPerTable; bit++) code = (code << 1) | /** @type {number} */ (bits[table * bitsPerTable + bit]);
      codes[row * tables + table] = code;
    }
  }
  return null;
}

/** In-place unnormalized fast Walsh–Hadamard transform; the length is a power of two. @param {Float64Array} values */
function walshHadamard(values) {
  for (let half = 1; half < values.length; half *= 2) {
    for (let start = 0; start < values.length; start += 2 * half) {
      for (let i = start; i < start + half; i++) {
        const x = /** @type {number} */ (values[i]);
        const y = /** @type {number} */ (values[i + half]);
        values[i] = x + y;
        values[i + half] = x - y;
      }
    }
  }
}
