import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";
import { type ClusterEmbeddingsInput, clusterEmbeddings } from "./cluster-embeddings.ts";
import type { EmbedTextsInput, EmbedTextsOutput } from "./embed-texts-task.ts";
import type { ScorePairsInput, ScorePairsOutput } from "./score-pairs-task.ts";

export interface ComputePoolOptions {
  /** Worker threads; defaults to the number of cores. */
  threads?: number;
}

/** A fixed set of worker threads for CPU-bound tasks. */
export interface ComputePool {
  readonly threads: number;
  /**
   * Once `signal` is aborted the call rejects with its reason; a task still queued is dropped, one
   * already running in a thread finishes (Piscina's own signal would terminate the thread, and with
   * it the loaded model).
   */
  embedTexts(input: EmbedTextsInput, options?: { signal?: AbortSignal | undefined }): Promise<EmbedTextsOutput>;
  /** Cross-encoder relevance of (query, document) pairs (tasks/score-pairs.mjs). */
  scorePairs(input: ScorePairsInput): Promise<ScorePairsOutput>;
  /**
   * Average-linkage clustering by cosine similarity (see cluster-embeddings.ts): a label per row,
   * 0..k-1 in order of each cluster's smallest row, -1 for rows in no cluster.
   */
  clusterEmbeddings(input: ClusterEmbeddingsInput): Promise<Int32Array>;
  /** Rejects new tasks, waits for running ones, then ends the threads. */
  close(): Promise<void>;
}

// Task files are plain .mjs so that worker threads load them under Node without a loader.
const embedTextsFile = fileURLToPath(new URL("./tasks/embed-texts.mjs", import.meta.url));
const scorePairsFile = fileURLToPath(new URL("./tasks/score-pairs.mjs", import.meta.url));
// A worker that ignores the exit request (still starting up when it was sent) is terminated
// after this long; such a worker has loaded no native session, so terminating it is safe.
const exitGraceMs = 5_000;

export function createComputePool(options: ComputePoolOptions = {}): ComputePool {
  const threads = options.threads ?? availableParallelism();
  if (!Number.isInteger(threads) || threads < 1) {
    throw new RangeError(`compute pool threads must be a positive integer, got ${threads}`);
  }
  const closeChannel = `als-compute-pool-close:${randomUUID()}`;
  const pool = new Piscina({
    // The default task; each worker loads it at start, which installs its exit listener
    // (exit-on-pool-close.mjs) before any native session exists.
    filename: embedTextsFile,
    workerData: { closeChannel },
    maxThreads: threads,
    // Workers start on demand and are never retired, so a model loaded in a thread stays loaded.
    // minThreads 0 also keeps Piscina from replacing workers that exit on request at close.
    minThreads: 0,
    idleTimeout: Infinity,
    // Under Bun a worker parked in Atomics.wait cannot be stopped, so close() would hang.
    atomics: "disabled",
    // The host's flags (e.g. tsx's --import loader) are not passed on: the task files are plain
    // JavaScript and load the same way whatever started the host.
    execArgv: [],
  });
  const running = new Set<Promise<unknown>>();
  let closing: Promise<void> | undefined;
  // Embedding tasks are handed to Piscina one per thread at most; the rest wait here, where a
  // task whose caller gave up can be dropped before it costs any CPU.
  let embedding = 0;
  const embedQueue: (() => void)[] = [];
  const nextEmbedding = () => {
    embedding--;
    embedQueue.shift()?.();
  };
  function embedInTurn(input: EmbedTextsInput, signal: AbortSignal | undefined): Promise<EmbedTextsOutput> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const start = () => {
      embedding++;
      const task = pool.run(input) as Promise<EmbedTextsOutput>;
      task.then(nextEmbedding, nextEmbedding);
      return task;
    };
    if (embedding < threads) return start();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        embedQueue.splice(embedQueue.indexOf(turn), 1);
        reject(signal?.reason);
      };
      const turn = () => {
        signal?.removeEventListener("abort", onAbort);
        start().then(resolve, reject);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      embedQueue.push(turn);
    });
  }

  function track<T>(task: Promise<T>): Promise<T> {
    running.add(task);
    task.then(
      () => running.delete(task),
      () => running.delete(task),
    );
    return task;
  }

  async function shutDown(): Promise<void> {
    await Promise.allSettled(running);
    const exited = Promise.all(pool.threads.map((worker) => once(worker, "exit")));
    const channel = new BroadcastChannel(closeChannel);
    channel.postMessage("exit");
    channel.close();
    // The timer is left referenced: Piscina unrefs idle workers, so without it Node would see an
    // empty event loop while the workers exit and end the process under a pending close().
    let grace: ReturnType<typeof setTimeout> | undefined;
    const graceOver = new Promise<void>((resolve) => {
      grace = setTimeout(resolve, exitGraceMs);
    });
    await Promise.race([exited, graceOver]);
    clearTimeout(grace);
    await pool.close();
  }

  return {
    threads,
    embedTexts(input, options) {
      if (closing) return Promise.reject(new Error("compute pool is closed"));
      return track(embedInTurn(input, options?.signal));
    },
    scorePairs(input) {
      if (closing) return Promise.reject(new Error("compute pool is closed"));
      return track(pool.run(input, { filename: scorePairsFile }));
    },
    clusterEmbeddings(input) {
      if (closing) return Promise.reject(new Error("compute pool is closed"));
      return track(clusterEmbeddings((filename, task) => pool.run(task, { filename }), threads, input));
    },
    close() {
      closing ??= shutDown();
      return closing;
    },
  };
}
