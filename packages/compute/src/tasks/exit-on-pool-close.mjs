// @ts-check
// Lets the pool end this worker thread by asking it to exit, instead of terminating it. Bun 1.3.14
// crashes the whole process ("NAPI FATAL ERROR: Error::New napi_create_error",
// oven-sh/bun#30286) when it terminates a worker that holds an onnxruntime-node session, while a
// worker that calls process.exit itself shuts down cleanly, under Bun and Node alike. Every task
// file imports this module first, so the listener exists even if a later import fails.
import { workerData } from "node:worker_threads";

/** @type {{ closeChannel: string }} */
const { closeChannel } = workerData;
new BroadcastChannel(closeChannel).onmessage = () => process.exit(0);
