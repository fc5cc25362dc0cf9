/** A pass repeated on a timer in this process, one pass at a time. */
export interface BackgroundLoop {
  /** Resolves when no pass is running (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops the timer; a running pass still finishes (await idle()). */
  stop(): void;
}

/**
 * Runs `pass` every `intervalMs`, skipping a tick while the previous pass still runs; a pass that
 * throws is reported to `onError` and the next tick tries again. The timer does not keep the
 * process alive.
 */
export function startBackgroundLoop(pass: () => Promise<unknown>, intervalMs: number, onError: (error: unknown) => void): BackgroundLoop {
  let running: Promise<void> | undefined;
  const tick = () => {
    running ??= pass()
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref?.();
  return {
    async idle() {
      while (running) await running;
    },
    stop: () => clearInterval(timer),
  };
}
