// @ts-check
// The thread that holds the in-process index's HNSW graphs (GraphThread): a search's walk of a
// graph runs here while the event loop does the search's other work. Plain JavaScript so that Node
// worker threads load it without a TypeScript loader; Bun loads it the same way.
import { parentPort, workerData } from "node:worker_threads";
import { Index } from "usearch";

/** @type {import("node:worker_threads").MessagePort} The port a save's or a load's answer goes to (GraphThread waits on it). */
const answers = workerData.answers;
/** @type {Map<number, Index>} */
const graphs = new Map();
/** Points an add must have for its vectors to be collected at once. */
const LARGE_ADD = 1000;

/** @param {number} id */
function graphOf(id) {
  const graph = graphs.get(id);
  if (!graph) throw new Error(`no graph ${id} in the graph thread`);
  return graph;
}

/** @param {any} message */
function run(message) {
  switch (message.op) {
    case "create":
      graphs.set(message.graph, new Index(message.shape));
      return undefined;
    case "add":
      graphOf(message.graph).add(message.keys, message.vectors, message.threads);
      return undefined;
    case "remove":
      graphOf(message.graph).remove(message.keys);
      return undefined;
    case "search": {
      const found = graphOf(message.graph).search(message.query, message.k, 1);
      return { keys: found.keys, distances: found.distances };
    }
    case "save":
      graphOf(message.graph).save(message.path);
      return undefined;
    case "load": {
      const graph = graphOf(message.graph);
      graph.load(message.path);
      return graph.size();
    }
    default:
      throw new Error(`unknown graph operation ${message.op}`);
  }
}

parentPort?.on("message", (message) => {
  if (message.op === "close") {
    // After every operation sent before it; the thread then ends with nothing left to wait on. (A
    // thread terminated from outside while usearch runs takes the whole process down with it.)
    graphs.clear();
    answers.close();
    parentPort?.close();
    return;
  }
  let result;
  let error;
  try {
    result = run(message);
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  if (message.signal) {
    // The event loop is blocked in Atomics.wait: the answer is on its port before it is woken.
    answers.postMessage({ result, error });
    Atomics.store(message.signal, 0, 1);
    Atomics.notify(message.signal, 0);
  } else if (error !== undefined && message.op !== "search") {
    // A failed add or removal leaves the graphs unlike the points kept beside them: the thread fails.
    parentPort?.postMessage({ failure: error });
  } else if (message.request !== undefined) {
    parentPort?.postMessage({ request: message.request, result, error });
  }
  // A large add's vectors (a rebuild's batch of 2,000: 3 MB), handed over from the event loop, are
  // garbage once the graph has copied them, and this thread allocates too little for its collector
  // to run soon: a full-mode start at 100k per kind kept 300–700 MB of them. Collected after the
  // answer is sent (Bun's runtime; elsewhere nothing), RSS is as when the graphs were on the event loop.
  if (message.op === "add" && message.keys.length >= LARGE_ADD) {
    /** @type {{ Bun?: { gc(full: boolean): void } }} */ (globalThis).Bun?.gc(true);
  }
});
