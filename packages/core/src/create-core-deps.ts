import { createEmbedder, createLlm, createLocalReranker } from "@als/ai";
import { createComputePool } from "@als/compute";
import { openDatabase } from "@als/db";
import { QdrantVectorIndex, VectorIndexUnavailableError } from "@als/vector";
import { followConfigChanges } from "./config/follow-config-changes.ts";
import { type CoreDeps, systemClock } from "./deps.ts";
import { ProcessActivity } from "./metrics/process-activity.ts";
import { createProcessServices } from "./process-services.ts";
import type { Settings } from "./settings.ts";
import { ChangeLogFollower } from "./vector-sync/change-log-follower.ts";
import { keepLearningHnswWhereSearched } from "./vector-sync/learning-hnsw-upkeep.ts";
import { prepareVectorIndex } from "./vector-sync/sync-vector-index.ts";

/** What the dependency graph is built from. */
export type CoreSettings = Pick<Settings, "storage" | "embedding" | "rerank" | "llm" | "vectorIndex" | "search"> &
  Partial<Pick<Settings, "learning" | "publishAdmission" | "crashPoints" | "dataSources">>;

export interface CoreLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface CoreOptions {
  /**
   * False: the process serves no search (the worker), so it opens no in-process index, which would
   * only cost it memory and a rebuild; the deployment's VECTOR_INDEX still decides which database
   * indexes are kept, as in every process.
   */
  searches?: boolean;
}

export interface CoreGraph {
  /** Without an orchestrator: each process builds the deps it runs on with its own (the reconciler, or Temporal). */
  deps: CoreDeps;
  /** Closes what was built, the last built first. */
  close(): Promise<void>;
}

/**
 * Builds a process's domain dependencies from its settings, once, for the API server and the worker
 * alike: the embedding model, the database, the compute pool, the reranker, the LLM provider and,
 * when configured, the vector index. A model that cannot be loaded throws EmbedderUnavailableError
 * (or RerankerUnavailableError) whose message says what to install or configure, after closing what
 * was built before it; a reranking model that is simply not installed only makes reranking answer 503.
 */
export async function createCoreDeps(settings: CoreSettings, log: CoreLogger, options: CoreOptions = {}): Promise<CoreGraph> {
  const built: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const part of built.reverse()) await part.close();
  };
  try {
    const activity = new ProcessActivity();
    const embedder = await createEmbedder(settings.embedding, activity.embeddingPools);
    built.push(embedder);
    const db = await openDatabase(settings.storage);
    built.push(db);
    // Threads start on first use: a process that never clusters or reranks never starts them.
    const compute = createComputePool({ activity: activity.embeddingPools });
    built.push(compute);
    const deps: CoreDeps = {
      db,
      services: createProcessServices(db, activity, settings),
      embedder,
      compute,
      reranker: await createLocalReranker({ modelDir: settings.rerank.modelDir, compute }),
      now: systemClock,
      search: settings.search,
      storage: settings.storage,
      ...(settings.learning && { learning: settings.learning }),
      ...(settings.crashPoints?.size && { crashPoints: settings.crashPoints }),
      ...(settings.dataSources && { dataSources: settings.dataSources }),
      ...(settings.llm && { llm: createLlm(settings.llm) }),
    };
    // Several processes share a PostgreSQL database: each hears the configuration changes of the others.
    if (settings.storage.kind === "postgres") built.push(followConfigChanges(deps, settings.storage, log));
    const hnswBuild = await keepLearningHnswWhereSearched(db, { vectorIndex: settings.vectorIndex?.kind ?? "pgvector", storage: settings.storage }, log);
    if (hnswBuild) built.push(hnswBuild);
    if (settings.vectorIndex?.kind === "qdrant") {
      const vectorIndex = new QdrantVectorIndex(settings.vectorIndex);
      // Qdrant out of reach at start is an outage like a later one: the process starts, the requests
      // that need the index answer 503, and the sync loop prepares it again once it answers.
      await prepareVectorIndex({ db, vectorIndex }).catch((error: unknown) => {
        if (!(error instanceof VectorIndexUnavailableError)) throw error;
        log.error("vector index unavailable at start; the sync loop prepares it once it answers", { error: String(error) });
      });
      deps.vectorIndex = vectorIndex;
    } else if (settings.vectorIndex?.kind === "in-process" && options.searches !== false) {
      const follower = await ChangeLogFollower.open(db, {
        directory: settings.vectorIndex.directory,
        onError: (error) => log.error("in-process vector index: following the change log failed", { error: String(error) }),
      });
      built.push(follower);
      deps.vectorIndex = follower;
      log.info("in-process vector index", { startedFrom: follower.startedFrom });
    }
    log.info("dependencies ready", {
      storage: db.kind,
      embeddingModel: embedder.modelId,
      llmProvider: settings.llm?.kind ?? "none",
      vectorIndex: settings.vectorIndex?.kind ?? "pgvector",
    });
    return { deps, close };
  } catch (error) {
    await close();
    throw error;
  }
}
