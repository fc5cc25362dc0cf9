/** What `work` settles to, or undefined once `deadline` (performance.now()) passes first. */
export async function withinDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  // Work abandoned at the deadline may still fail later: nobody is left to be told.
  work.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}
