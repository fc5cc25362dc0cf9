import { isMainThread } from "node:worker_threads";

/**
 * Runs the calling bench as scripts/serve runs the service: its module in a worker thread of a
 * process started with Bun's collection timer off (BUN_GC_TIMER_DISABLE=1; apps/server/src/main.ts
 * says why), so that the app it serves in its own process is measured as deployed. Called first,
 * with the bench's own path: in that thread it returns true and the bench goes on. In the main
 * thread it starts the thread (from a process of its own when the variable is not set), waits for
 * it and exits with its exit code.
 */
export async function inServiceThread(entry: string): Promise<true> {
  if (!isMainThread) return true;
  if (process.env.BUN_GC_TIMER_DISABLE !== "1") {
    const child = Bun.spawn([process.execPath, entry, ...process.argv.slice(2)], {
      env: { ...process.env, BUN_GC_TIMER_DISABLE: "1" },
      stdio: ["inherit", "inherit", "inherit"],
    });
    process.exit(await child.exited);
  }
  const thread = new Worker(entry, { argv: process.argv.slice(2) } as WorkerOptions);
  const code = await new Promise<number>((resolve) => {
    thread.addEventListener("close", (event) => resolve((event as CloseEvent).code));
    thread.addEventListener("error", (event) => {
      process.stderr.write(`${event.message}\n`);
      resolve(1);
    });
  });
  process.exit(code);
}
