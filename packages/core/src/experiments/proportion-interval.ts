/** The normal quantile of a two-sided 95% interval. */
const Z_95 = 1.959963984540054;

/** A rate and its 95% interval, each in [0, 1]. */
export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

/**
 * The Wilson score interval of `successes` out of `n` (n > 0): unlike the normal approximation it
 * stays inside [0, 1] and keeps its coverage for small samples and rates near 0 or 1.
 */
export function wilsonInterval(successes: number, n: number): Interval {
  const p = successes / n;
  const z2 = Z_95 * Z_95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z_95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * The 95% interval of the difference of two independent rates, a − b, by Newcombe's hybrid score
 * method (his method 10), built from each rate's Wilson interval.
 */
export function differenceInterval(a: Interval, b: Interval): Interval {
  const difference = a.estimate - b.estimate;
  return {
    estimate: difference,
    low: difference - Math.sqrt((a.estimate - a.low) ** 2 + (b.high - b.estimate) ** 2),
    high: difference + Math.sqrt((a.high - a.estimate) ** 2 + (b.estimate - b.low) ** 2),
  };
}
