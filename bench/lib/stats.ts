/**
 * The p-th percentile (0 < p ≤ 100) by the nearest-rank method: the smallest sample such that at
 * least p% of the samples are less than or equal to it. No interpolation, so it is always a
 * latency that was actually observed.
 */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1]!;
}

export function mean(samples: readonly number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((sum, x) => sum + x, 0) / samples.length;
}

/** A markdown table; numbers are expected to be formatted by the caller. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)));
  const line = (cells: readonly string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  return [line(header), `| ${widths.map((width) => "-".repeat(width)).join(" | ")} |`, ...rows.map(line)].join("\n");
}

export const ms = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : "–");
export const seconds = (millis: number): string => `${(millis / 1000).toFixed(1)} s`;
