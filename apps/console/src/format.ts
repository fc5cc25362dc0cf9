/** A Unix-seconds time as the reader's local date and time. */
export const formatTime = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toLocaleString() : "—");

/** A 0..1 rate as a percentage, or a dash when there is none. */
export const formatRate = (rate: number | null | undefined) => (rate === null || rate === undefined ? "—" : `${Math.round(rate * 1000) / 10}%`);

/** A duration in seconds as the two largest units that say it (2 h 5 min, 45 s). */
export function formatDuration(seconds: number): string {
  const units: [string, number][] = [
    ["d", 86_400],
    ["h", 3_600],
    ["min", 60],
    ["s", 1],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.floor(seconds));
  for (const [name, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (parts.length === 0 && size === 1)) parts.push(`${count} ${name}`);
    if (parts.length === 2) break;
  }
  return parts.join(" ");
}
