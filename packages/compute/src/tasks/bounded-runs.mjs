// @ts-check
// How a worker task's sequences are split into model runs whose memory is bounded.

/**
 * The sequences of one task, as runs of their indices for the model: each run's padded attention
 * (rows × longest sequence²) at most that of one sequence at the task's token limit, rows of
 * similar length together (shortest first) so that little of a run is padding.
 *
 * ONNX Runtime's CPU arena grows to the largest run a session has made and keeps that memory for
 * good, and a transformer run's memory is mostly its attention scores (rows × heads × length²): one
 * run of sixteen 512-token texts grew a thread's arena by about 600 MB, of thirty-two by 1.26 GB,
 * one such text alone by 60 MB. Bounded this way, no run holds more than one longest sequence does,
 * which the model needs anyway, so a thread's arena stops at that plateau whatever tasks arrive;
 * and batching past it saves no time (per text, four 512-token texts in one run cost as much as one).
 * @param {number[]} lengths tokens of each sequence, in task order
 * @param {number} maxTokens the task's token limit per sequence
 * @returns {number[][]}
 */
export function boundedRuns(lengths, maxTokens) {
  const budget = maxTokens * maxTokens;
  const order = lengths.map((_, index) => index).sort((a, b) => /** @type {number} */ (lengths[a]) - /** @type {number} */ (lengths[b]));
  /** @type {number[][]} */
  const runs = [];
  /** @type {number[]} */
  let run = [];
  for (const index of order) {
    // Ascending order: the sequence added is the run's longest.
    const longest = /** @type {number} */ (lengths[index]);
    if (run.length > 0 && (run.length + 1) * longest * longest > budget) {
      runs.push(run);
      run = [];
    }
    run.push(index);
  }
  if (run.length > 0) runs.push(run);
  return runs;
}
