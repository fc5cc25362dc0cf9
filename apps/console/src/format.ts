/** A Unix-seconds time as the reader's local date and time. */
export const formatTime = (seconds: number | null | undefined) => (seconds ? new Date(seconds * 1000).toLocaleString() : "—");

/** A 0..1 rate as a percentage, or a dash when there is none. */
export const formatRate = (rate: number | null | undefined) => (rate === null || rate === undefined ? "—" : `${Math.round(rate * 1000) / 10}%`);
