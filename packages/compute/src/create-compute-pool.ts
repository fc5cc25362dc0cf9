import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { inSpan } from "@als/telemetry";
import { Piscina } from "piscina";
import { type ClusterEmbeddingsInput, clusterEmbeddings } from "./cluster-embeddings.ts";
import type { EmbedTextsInput, EmbedTextsOutput } from "./embed-texts-task.ts";
import type { EmbeddingPoolActivity } from "./embedding-pool-activity.ts";
import type { ScorePairsInput, ScorePairsOutput } from "./score-pairs-task.ts";

export interface ComputePoolOptions {
  /** Worker threads; defaults to the number of cores. */
  threads?: number;
  /** The process's embedding pools, where this one's state and tasks are counted; unset, they are not. */
  activity?: EmbeddingPoolActivity;
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

/** An embedding task waiting for a thread, with its caller's promise. */
interface QueuedEmbedding {
  input: EmbedTextsInput;
  signal: AbortSignal | undefined;
  resolve: (vectors: EmbedTextsOutput) => void;
  reject: (reason: unknown) => void;
  onAbort: () => void;
}

/**
 * How many waiting one-text tasks run as one. The model costs less per text in a batch: a query
 * alone takes about 5 ms here, in a batch of 4 to 16 about 3 ms each (e5-small-v2 int8, one
 * thread), and when tasks wait the threads are busy, so the CPU saved serves the next ones.
 */
const COALESCED_TEXTS = 16;
/**
 * At most this many characters in one coalesced batch (the first text always runs, whatever its
 * length). A batch cannot be stopped once in a thread, and every text in it is padded to the
 * longest: sixteen queries near the 8,192-character cap ran for seconds as one task, so a search
 * after a burst of them waited that long for a thread although the burst's searches had all been
 * answered. Sixteen ordinary queries (about 64 characters) still run together.
 */
const COALESCED_CHARS = 2_048;

/**
 * The next task to run, taken from the front of `queue`; when it is one text, with the other
 * one-text tasks of the same model and token budget behind it (up to COALESCED_TEXTS texts and
 * COALESCED_CHARS characters), in queue order. Tasks of several texts (documents, already batched
 * by length) run as they are.
 */
function takeCoalesced(queue: QueuedEmbedding[]): QueuedEmbedding[] {
  const first = queue.shift();
  if (!first) return [];
  const batch = [first];
  if (first.input.texts.length !== 1) return batch;
  let chars = first.input.texts[0]!.length;
  for (let i = 0; i < queue.length && batch.length < COALESCED_TEXTS; ) {
    const { input } = queue[i]!;
    const fits = chars + (input.texts[0]?.length ?? 0) <= COALESCED_CHARS;
    if (fits && input.texts.length === 1 && input.modelDir === first.input.modelDir && input.maxTokens === first.input.maxTokens) {
      chars += input.texts[0]!.length;
      batch.push(...queue.splice(i, 1));
    } else i++;
  }
  return batch;
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
  // task whose caller gave up can be dropped before it costs any CPU, and where waiting one-text
  // tasks (query embeddings) are run together.
  let embedding = 0;
  const embedQueue: QueuedEmbedding[] = [];
  const untrack = options.activity?.track(() => ({ threads, running: embedding, queued: embedQueue.length }));
  const runEmbedding = (input: EmbedTextsInput): Promise<EmbedTextsOutput> => {
    embedding++;
    options.activity?.noteBatch(input.texts.length);
    const task = pool.run(input) as Promise<EmbedTextsOutput>;
    task.then(nextEmbedding, nextEmbedding);
    return task;
  };
  function nextEmbedding() {
    embedding--;
    const batch = takeCoalesced(embedQueue);
    if (batch.length === 0) return;
    for (const waiting of batch) waiting.signal?.removeEventListener("abort", waiting.onAbort);
    const [first] = batch as [QueuedEmbedding, ...QueuedEmbedding[]];
    runEmbedding({ ...first.input, texts: batch.flatMap((waiting) => waiting.input.texts) }).then(
      (vectors) => {
        if (batch.length === 1) return first.resolve(vectors);
        const dimensions = vectors.length / batch.length;
        for (const [row, waiting] of batch.entries()) waiting.resolve(vectors.slice(row * dimensions, (row + 1) * dimensions));
      },
      (error) => {
        for (const waiting of batch) waiting.reject(error);
      },
    );
  }
  function embedInTurn(input: EmbedTextsInput, signal: AbortSignal | undefined): Promise<EmbedTextsOutput> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (embedding < threads) return runEmbedding(input);
    return new Promise((resolve, reject) => {
      const waiting: QueuedEmbedding = {
        input,
        signal,
        resolve,
        reject,
        onAbort: () => {
          embedQueue.splice(embedQueue.indexOf(waiting), 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener("abort", waiting.onAbort, { once: true });
      embedQueue.push(waiting);
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
    untrack?.();
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
      // The texts asked for: queued queries may run together with others in one pool task (als_embedding_batch_texts counts those).
      return inSpan("embedding", { "als.embedding.texts": input.texts.length }, () => track(embedInTurn(input, options?.signal)));
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
