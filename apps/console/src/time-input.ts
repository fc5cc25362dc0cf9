/** Unix seconds as the value of a datetime-local input, in the reader's time zone, to the minute. */
export function toLocalInput(seconds: number): string {
  const date = new Date(seconds * 1000);
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local input's value (the reader's time zone) as Unix seconds. */
export const fromLocalInput = (value: string): number => Math.floor(new Date(value).getTime() / 1000);
