/**
 * Settles as `work` does, or as `expire` settles it once `deadline` (performance.now()) passes first.
 * The timer is cleared either way, so a finished race keeps no timer alive.
 */
async function raceDeadline<T, U>(
  work: Promise<T>,
  deadline: number,
  expire: (resolve: (value: U) => void, reject: (error: unknown) => void) => void,
): Promise<T | U> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<U>((resolve, reject) => {
    timer = setTimeout(() => expire(resolve, reject), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What `work` settles to, unless `deadline` (performance.now()) passes first: then it rejects with
 * `timeout()`, and `expiry` (when given) is aborted with that same error, so the work stops too. The
 * work is not otherwise stopped: what it already sent may still take effect after the answer.
 */
export function rejectAtDeadline<T>(work: Promise<T>, deadline: number, timeout: () => unknown, expiry?: AbortController): Promise<T> {
  return raceDeadline<T, never>(work, deadline, (_, reject) => {
    const error = timeout();
    // The answer first: the abort makes the work fail too, and that failure must not win the race.
    reject(error);
    expiry?.abort(error);
  });
}

/** What `work` settles to, or undefined once `deadline` (performance.now()) passes first. */
export function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  // Work abandoned at the deadline may still fail later: nobody is left to be told.
  work.catch(() => {});
  return raceDeadline<T, undefined>(work, deadline, (resolve) => resolve(undefined));
}
