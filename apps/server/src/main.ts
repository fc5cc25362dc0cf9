/**
 * The API server's process. The service itself runs in a worker thread (service-thread.ts); this,
 * the main thread, starts it, passes it the signals that stop it, and ends with its exit code.
 *
 * Why a thread: Bun collects a busy thread's heap 16 ms after every turn of its event loop in which
 * the heap grew, up to 60 times a second, and each collection stops the service for 1–3 ms. That
 * timer can be turned off (BUN_GC_TIMER_DISABLE=1, which scripts/serve and the systemd unit set) in
 * a worker thread only: there the heap is collected as JavaScriptCore's own limits ask, and the same
 * machine serves about a quarter more searches a second (bench/README.md, unified-search).
 */
const thread = new Worker(new URL("./service-thread.ts", import.meta.url).href);
thread.addEventListener("close", (event) => process.exit((event as CloseEvent).code));
// An error the thread did not handle itself (its process guard handles those it can): it cannot go on.
thread.addEventListener("error", (event) => {
  process.stderr.write(`the service stopped: ${event.message}\n`);
  process.exit(1);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => thread.postMessage({ stop: signal }));
