import { fileURLToPath } from "node:url";
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
// Types only: usearch's native module is loaded by the graph thread, never by the event loop's.
import type { MetricKind, ScalarKind } from "usearch";

const workerFile = fileURLToPath(new URL("./graph-worker.mjs", import.meta.url));

/**
 * How long a save or a load may keep the event loop waiting for the thread: behind it may be a
 * rebuild's adds (100k points in about 12 s).
 */
const WAIT_MS = 120_000;

/** A usearch graph's construction options (usearch's Index), as Partition chooses them. */
export interface GraphShape {
  dimensions: number;
  metric: `${MetricKind}`;
  quantization: `${ScalarKind}`;
  multi: boolean;
  connectivity: number;
  expansion_add: number;
  expansion_search: number;
}

export interface GraphMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

interface Answer {
  request?: number;
  result?: unknown;
  error?: string;
  failure?: string;
}

/**
 * A worker thread holding HNSW graphs (graph-worker.mjs), each named by a number. Walking a graph
 * is most of a project-wide vector search (0.5–0.8 ms at 10k points, 1.1–1.4 at 100k): here it
 * runs beside the event loop, which meanwhile compares one user's points and reads rows for the
 * search's other kinds. Messages are handled in the order sent, so a search sees every add and
 * removal sent before it. Adds and searches answer by message, removals are not answered; a save
 * or a load, rare, blocks the caller as usearch's own calls did. After any failure every call fails
 * with it (`failure`): the index's owner then starts again with a new thread.
 */
export class GraphThread {
  private readonly worker: Worker;
  private readonly answers: MessagePort;
  private readonly waiting = new Map<number, { resolve: (result: never) => void; reject: (error: Error) => void }>();
  private nextRequest = 0;
  private nextGraph = 0;
  failure: Error | null = null;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.answers = port1;
    this.worker = new Worker(workerFile, { workerData: { answers: port2 }, transferList: [port2] });
    // Only an unanswered add or search keeps the process alive (see ask).
    this.worker.unref();
    this.worker.on("message", (answer: Answer) => this.answered(answer));
    this.worker.on("error", (error) => this.fail(error instanceof Error ? error : new Error(String(error))));
    this.worker.on("exit", (code) => this.fail(new Error(`the graph thread exited with code ${code}`)));
  }

  /** A new empty graph of this shape. */
  create(shape: GraphShape): number {
    const graph = this.nextGraph++;
    this.post({ op: "create", graph, shape });
    return graph;
  }

  /**
   * Adds the points (keys[i] for the i-th vector); `threads` 0 is every core. A search sent after
   * it sees them either way; the promise says when the graph holds them (a rebuild is done only then).
   */
  add(graph: number, keys: BigUint64Array, vectors: Float32Array, threads: number): Promise<void> {
    return this.ask({ op: "add", graph, keys, vectors, threads }, [keys.buffer as ArrayBuffer, vectors.buffer as ArrayBuffer]);
  }

  remove(graph: number, keys: BigUint64Array): void {
    this.post({ op: "remove", graph, keys }, [keys.buffer as ArrayBuffer]);
  }

  /** The `k` keys nearest `query`, nearest first, with their cosine distances. */
  search(graph: number, query: Float32Array, k: number): Promise<GraphMatches> {
    return this.ask({ op: "search", graph, query, k });
  }

  /** Writes the graph to `path` once every operation sent before is done. */
  save(graph: number, path: string): void {
    this.call({ op: "save", graph, path });
  }

  /** Reads the graph from `path` (made by save); returns how many points it holds. */
  load(graph: number, path: string): number {
    return this.call({ op: "load", graph, path }) as number;
  }

  /** Stops the thread once what was sent to it is done; its graphs are gone, and every call after fails. */
  close(): void {
    this.fail(new Error("the graph thread is closed"));
  }

  /** Sends `message` with a request number; its answer settles the promise. */
  private ask<T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    const request = this.nextRequest++;
    return new Promise<T>((resolve, reject) => {
      if (this.waiting.size === 0) this.worker.ref();
      this.waiting.set(request, { resolve: resolve as (result: never) => void, reject });
      this.worker.postMessage({ ...message, request }, transfer);
    });
  }

  private post(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): void {
    if (this.failure) throw this.failure;
    this.worker.postMessage(message, transfer);
  }

  /** Sends `message` and blocks until the thread has answered it. */
  private call(message: Record<string, unknown>): unknown {
    const signal = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
    this.post({ ...message, signal });
    if (Atomics.wait(signal, 0, 0, WAIT_MS) === "timed-out") {
      const error = new Error(`the graph thread did not answer a ${message.op} within ${WAIT_MS / 1000} s`);
      this.fail(error);
      throw error;
    }
    const answer = receiveMessageOnPort(this.answers)?.message as Answer | undefined;
    if (!answer) throw new Error(`the graph thread's answer to a ${message.op} was not on its port`);
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.result;
  }

  private answered(answer: Answer): void {
    if (answer.failure !== undefined) {
      this.fail(new Error(answer.failure));
      return;
    }
    const waiter = this.waiting.get(answer.request!);
    if (!waiter) return;
    this.waiting.delete(answer.request!);
    if (this.waiting.size === 0) this.worker.unref();
    if (answer.error !== undefined) waiter.reject(new Error(answer.error));
    else waiter.resolve(answer.result as never);
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    this.answers.close();
    // Asked to end rather than terminated: terminating it in the middle of a usearch call crashes
    // the process. Nothing more is sent to it, so it ends once what it was sent is done.
    this.worker.postMessage({ op: "close" });
  }
}
