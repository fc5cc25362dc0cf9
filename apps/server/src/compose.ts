import { createEmbedder, createLlm, createLocalReranker } from "@als/ai";
import { createComputePool } from "@als/compute";
import { prepareVectorIndex, Reconciler, systemClock, type CoreDeps, type Settings } from "@als/core";
import { openDatabase } from "@als/db";
import { QdrantVectorIndex } from "@als/vector";
import { signalLearnUser } from "@als/workflows/signal-learn-user";
import { startAggregationOperationWorkflow } from "@als/workflows/start-aggregation-operation";
import { Client, Connection } from "@temporalio/client";
import type { Logger } from "./logger.ts";

/**
 * The composition root: builds the process's dependencies from its settings. A model that cannot be
 * loaded throws EmbedderUnavailableError (or RerankerUnavailableError), whose message says what to
 * install or configure; a reranking model that is simply not installed only makes reranking answer 503.
 */
export async function composeService(settings: Settings, log: Logger) {
  const embedder = await createEmbedder(settings.embedding);
  const db = await openDatabase(settings.storage);
  // Threads start on first use: a process that never aggregates never starts them.
  const compute = createComputePool();
  const reranker = await createLocalReranker({ modelDir: settings.rerank.modelDir, compute });
  const deps: CoreDeps = {
    db,
    embedder,
    compute,
    reranker,
    now: systemClock,
    search: settings.search,
    storage: settings.storage,
    ...(settings.llm && { llm: createLlm(settings.llm) }),
  };
  if (settings.vectorIndex) {
    const vectorIndex = new QdrantVectorIndex(settings.vectorIndex);
    await prepareVectorIndex({ db, vectorIndex });
    deps.vectorIndex = vectorIndex;
  }
  const mode = settings.storage.kind === "postgres" ? ("full" as const) : ("embedded" as const);
  // Full mode leaves long-running work to the Temporal worker; embedded mode runs it in process.
  let reconciler: Reconciler | undefined;
  let connection: Connection | undefined;
  if (settings.temporal === undefined) {
    const running = new Reconciler(deps, (error: unknown) => log.error("reconciler pass failed", { error: String(error) }));
    deps.scheduleLearning = (scope, userId) => running.wakeUser(scope, userId);
    deps.scheduleAggregation = () => running.poke();
    running.poke();
    reconciler = running;
  } else {
    const { address, namespace, taskQueue } = settings.temporal;
    connection = await Connection.connect({ address });
    const client = new Client({ connection, namespace });
    // The publish or the receipt is committed either way; a worker starting up schedules what was left.
    deps.scheduleLearning = async (scope, userId) => {
      try {
        await signalLearnUser(client, taskQueue, scope, userId);
      } catch (error) {
        log.error("could not signal the learning workflow", { userId, error: String(error) });
      }
    };
    deps.scheduleAggregation = async (scope, operationId) => {
      try {
        await startAggregationOperationWorkflow(client, taskQueue, scope, operationId);
      } catch (error) {
        log.error("could not start the aggregation workflow", { operationId, error: String(error) });
      }
    };
  }
  return {
    deps,
    mode,
    reconciler,
    async close() {
      reconciler?.stop();
      await reconciler?.idle();
      await connection?.close();
      await db.close();
      await compute.close();
      await embedder.close();
    },
  };
}
