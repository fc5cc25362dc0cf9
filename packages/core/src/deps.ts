import type { Embedder, Llm, Reranker } from "@als/ai";
import type { Database, StorageOptions } from "@als/db";
import type { VectorIndex } from "@als/vector";
import type { Orchestrator } from "./durable/orchestrator.ts";
import type { ProcessServices } from "./process-services.ts";

/** What domain functions need from the process; built once by each composition root. */
export interface CoreDeps {
  db: Database;
  /** What the process keeps between requests (caches, admission, queues), built with it: see createProcessServices. */
  services: ProcessServices;
  embedder: Embedder;
  /** Current time in Unix seconds; tests move it to check expiry. */
  now: () => number;
  /** Unset: the defaults of SearchSettings. */
  search?: SearchSettings;
  /** The storage settings the database was opened with (whoami, my_config); unset: not reported. */
  storage?: StorageOptions;
  /** Unset: the vector arm runs in the ranked-search SQL (pgvector); set: it asks this index (Qdrant), kept in sync by the outbox. */
  vectorIndex?: VectorIndex;
  /** Scores (query, profile) pairs for rerank_user_profiles; unset: that endpoint answers 503 reranker_unavailable. */
  reranker?: Reranker;
  /** Unset: no LLM provider is configured; publishing works, learning reports what to configure. */
  llm?: Llm;
  /**
   * The orchestrator of durable work (the reconciler, or Temporal), set by the composition root when
   * it builds the deps and never replaced; unset: work is committed and waits for the next start's recovery.
   */
  readonly orchestrator?: Orchestrator;
  /** Unset: the defaults of LearningSettings. */
  learning?: LearningSettings;
  /** Full mode with the Temporal UI's address configured: where its workflows are listed (the console links there). */
  temporalUi?: { workflowsUrl: string };
  /** CPU work off the event loop (clustering); aggregation needs it. */
  compute?: { clusterEmbeddings(input: { vectors: Float32Array; dims: number; threshold: number; minClusterSize: number }): Promise<Int32Array> };
  /** Unset: connections reach the providers' public hosts, credentials sealed under the database's key. */
  dataSources?: DataSourceSettings;
  /** Crash tests only (CRASH_POINTS): the points of durable work where the process kills itself (see crashAt). */
  crashPoints?: ReadonlySet<string>;
}

export interface DataSourceSettings {
  /** `provider:region` → base URL replacing that region's public host (tests: deterministic provider servers). */
  providerBaseUrls?: Record<string, string>;
  /** Seals provider credentials at rest; unset: the secret the database holds for this deployment. */
  credentialKey?: string;
}

export interface LearningSettings {
  /** A short window runs once its session has been quiet this long. Default six hours. */
  sessionInactivitySeconds?: number;
  /** A session that used a playbook has its outcome inferred once quiet this long. Default DEFAULT_OUTCOME_QUIET_SECONDS. */
  outcomeQuietSeconds?: number;
  /**
   * Users whose windows the reconciler learns from at once: each mostly waits on the LLM, so this
   * follows the provider's concurrency (LLM_CONCURRENCY), not the cores. Default DEFAULT_LEARNING_CONCURRENCY.
   */
  concurrency?: number;
}

export const DEFAULT_LEARNING_CONCURRENCY = 8;

/**
 * How a process admits publishes: at most `concurrency` publishes under way at once (they share a
 * few transactions, see SharedCommits), and every publish answered within `timeoutMs`, committed or
 * not (see admitPublish).
 */
export interface PublishAdmissionSettings {
  concurrency: number;
  timeoutMs: number;
}

/**
 * Sixteen publishes under way let those that wait for a transaction share it in groups large enough
 * to pay off (bench/publish.ts: at concurrency 16, about 40% more publishes a second than eight),
 * while the queue's few transactions leave most of the ten pooled connections to searches and reads.
 * Ten seconds is far beyond a healthy commit and well inside a client's patience.
 */
export const DEFAULT_PUBLISH_ADMISSION: PublishAdmissionSettings = { concurrency: 16, timeoutMs: 10_000 };

export interface SearchSettings {
  /** Deadline of a unified search in milliseconds; null disables it (operator switch). Default 5000. */
  deadlineMs?: number | null;
  /**
   * Searches one process runs at once (SERVICE_SEARCH_CONCURRENCY); more wait only while they could
   * still finish in time, else answer 503 overloaded. Default DEFAULT_SEARCH_CONCURRENCY.
   */
  concurrency?: number;
  /** Unset: the secret the database holds for this deployment (made on first use). */
  exposureReceiptSecret?: string;
}

/**
 * Searches under way in one process. Embedded, they share one PGlite thread and the embedding pool;
 * beyond a few dozen each only waits longer for the same CPU, so further ones are better refused.
 */
export const DEFAULT_SEARCH_CONCURRENCY = 32;

export const systemClock = (): number => Math.floor(Date.now() / 1000);
