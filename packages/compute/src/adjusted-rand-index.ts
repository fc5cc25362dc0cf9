/**
 * Adjusted Rand index of two labelings of the same rows: 1 for the same partition, about 0 for
 * agreement no better than chance. Label -1 means "in no cluster", so each such row counts as a
 * cluster of its own; counting all of them as one cluster would reward two labelings for merely
 * agreeing that rows are unclustered.
 */
export function adjustedRandIndex(a: Int32Array, b: Int32Array): number {
  if (a.length !== b.length) throw new RangeError(`labelings differ in length: ${a.length} and ${b.length}`);
  const n = a.length;
  if (n < 2) return 1;
  const pairs = (count: number) => (count * (count - 1)) / 2;
  // Rows labeled -1 are told apart by their row number, negated below -1.
  const cluster = (labels: Int32Array, row: number) => (labels[row]! >= 0 ? labels[row]! : -2 - row);
  const countBy = (key: (row: number) => string | number) => {
    const counts = new Map<string | number, number>();
    for (let row = 0; row < n; row++) counts.set(key(row), (counts.get(key(row)) ?? 0) + 1);
    return [...counts.values()];
  };
  const sumOfPairs = (counts: number[]) => counts.reduce((sum, count) => sum + pairs(count), 0);
  const together = sumOfPairs(countBy((row) => `${cluster(a, row)},${cluster(b, row)}`));
  const togetherInA = sumOfPairs(countBy((row) => cluster(a, row)));
  const togetherInB = sumOfPairs(countBy((row) => cluster(b, row)));
  const expected = (togetherInA * togetherInB) / pairs(n);
  const maximum = (togetherInA + togetherInB) / 2;
  // Both labelings are all singletons (or both one cluster): nothing to adjust, they agree.
  if (maximum === expected) return 1;
  return (together - expected) / (maximum - expected);
}
