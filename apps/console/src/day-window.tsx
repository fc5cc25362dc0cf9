/** The windows a page of daily figures offers, in days. */
const WINDOWS = [7, 30, 90] as const;
export type WindowDays = (typeof WINDOWS)[number];
const DAY = 86_400;

/**
 * The window's bounds in Unix seconds: it ends at the next UTC midnight, so a day's bucket is whole,
 * today's figures are in, and a query's key stays stable within the day.
 */
export function dayWindow(days: WindowDays): { start: number; end: number } {
  const end = Math.ceil(Date.now() / 1000 / DAY) * DAY;
  return { start: end - days * DAY, end };
}

/** The choice of window, labelled for screen readers. */
export function WindowSelect({ days, onChange }: { days: WindowDays; onChange(days: WindowDays): void }) {
  return (
    <label className="inline">
      Window
      <select value={days} onChange={(event) => onChange(Number(event.target.value) as WindowDays)}>
        {WINDOWS.map((each) => (
          <option key={each} value={each}>
            Last {each} days
          </option>
        ))}
      </select>
    </label>
  );
}
