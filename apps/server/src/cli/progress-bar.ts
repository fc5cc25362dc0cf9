/** Where progress is drawn: stderr, a terminal or not. */
export interface ProgressOutput {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** A terminal's line is redrawn at most this often: drawing faster only costs the work time. */
const REDRAW_MS = 100;
/** Without a terminal (a log, a pipe), a plain line at each step of this many percent. */
const PLAIN_STEP_PERCENT = 5;
const BAR_WIDTH = 24;

/**
 * done/total, the rate and the time left, on one line of stderr: redrawn in place on a terminal, a
 * plain line every 5% otherwise (so a log holds a short history, not a line per batch). The rate is
 * this run's: what an earlier, interrupted run did counts as done but not as speed.
 */
export class ProgressBar {
  private done: number;
  private readonly doneAtStart: number;
  private readonly startedAt: number;
  private lastDrawn = Number.NEGATIVE_INFINITY;
  private lastStep: number;
  /** What the last plain line showed: finish() does not repeat it. */
  private lastPrinted = -1;

  constructor(
    private readonly output: ProgressOutput,
    private readonly label: string,
    private readonly unit: string,
    private readonly total: number,
    alreadyDone: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.done = alreadyDone;
    this.doneAtStart = alreadyDone;
    this.startedAt = now();
    this.lastStep = Math.floor(this.percent() / PLAIN_STEP_PERCENT);
    this.draw(true);
  }

  advance(count: number): void {
    this.done += count;
    this.draw(false);
  }

  /** The last line, ending the terminal's redrawn one. */
  finish(): void {
    this.draw(true);
    if (this.output.isTTY) this.output.write("\n");
  }

  /** Interactions (or rows) a second in this run. */
  rate(): number {
    const seconds = (this.now() - this.startedAt) / 1000;
    return seconds > 0 ? (this.done - this.doneAtStart) / seconds : 0;
  }

  /** Seconds left at this run's rate; null before anything was done. */
  etaSeconds(): number | null {
    const rate = this.rate();
    return rate > 0 ? Math.max(0, this.total - this.done) / rate : null;
  }

  /** The line as it is drawn. */
  line(): string {
    const percent = this.percent();
    const filled = Math.round((percent / 100) * BAR_WIDTH);
    const bar = this.output.isTTY ? `${"█".repeat(filled)}${"░".repeat(BAR_WIDTH - filled)} ` : "";
    const eta = this.etaSeconds();
    return `${this.label} ${bar}${percent.toFixed(0).padStart(3)}% ${this.done}/${this.total} ${this.unit} · ${this.rate().toFixed(0)}/s · ETA ${eta === null ? "--" : formatDuration(eta)}`;
  }

  private percent(): number {
    return this.total > 0 ? Math.min(100, (this.done / this.total) * 100) : 100;
  }

  private draw(force: boolean): void {
    const now = this.now();
    if (this.output.isTTY) {
      if (!force && now - this.lastDrawn < REDRAW_MS) return;
      this.lastDrawn = now;
      const width = this.output.columns ?? 100;
      this.output.write(`\r${this.line().slice(0, width - 1)}\x1b[K`);
      return;
    }
    const step = Math.floor(this.percent() / PLAIN_STEP_PERCENT);
    if ((!force && step === this.lastStep) || this.done === this.lastPrinted) return;
    this.lastStep = step;
    this.lastPrinted = this.done;
    this.output.write(`${this.line()}\n`);
  }
}

/** 75 → "1m15s", 3700 → "1h01m"; seconds rounded up, so nothing reads 0s before it is done. */
export function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, "0")}m`;
}
