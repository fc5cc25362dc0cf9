/** Unix seconds as the ISO 8601 text (UTC) of the contract's datetime fields. */
export const isoTime = (seconds: number): string => new Date(seconds * 1000).toISOString();

export const isoTimeOrNull = (seconds: number | null): string | null => (seconds === null ? null : isoTime(seconds));
