import { isIP } from "node:net";
import type { LlmSettings } from "@als/ai";
import type { RateClass } from "@als/contract";
import { DEFAULT_STORAGE_TIMEOUTS, type StorageTimeouts } from "@als/db";
import { SAMPLER_NAMES, type TracingSettings } from "@als/telemetry";
import type { QdrantSettings } from "@als/vector";
import { z } from "zod";
import {
  type DataSourceSettings,
  DEFAULT_LEARNING_CONCURRENCY,
  DEFAULT_PUBLISH_ADMISSION,
  DEFAULT_SEARCH_CONCURRENCY,
  type LearningSettings,
  type PublishAdmissionSettings,
  type SearchSettings,
} from "./deps.ts";

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === "" ? undefined : value.trim()));

/** `50/100`: fifty requests a second sustained, a burst of a hundred. */
const RateLimitText = z
  .string()
  .regex(/^\d+(\.\d+)?\/\d+$/, "must be <per second>/<burst>, e.g. 50/100")
  .transform((text) => {
    const [perSecond, burst] = text.split("/").map(Number) as [number, number];
    return { perSecond, burst };
  });

/** A proxy or a network of proxies whose forwarded-address headers are believed. */
export interface TrustedProxy {
  address: string;
  family: "ipv4" | "ipv6";
  /** The CIDR prefix length; the whole address (32 or 128) for a single one. */
  prefix: number;
}

/** `10.0.0.5, 10.1.0.0/16, ::1`: addresses and CIDR networks, comma-separated. */
const TrustedProxiesText = z
  .string()
  .default("")
  .transform((text, ctx) => {
    const proxies: TrustedProxy[] = [];
    for (const entry of text
      .split(",")
      .map((each) => each.trim())
      .filter(Boolean)) {
      const [address = "", prefixText] = entry.split("/");
      const version = isIP(address);
      const width = version === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? width : /^\d+$/.test(prefixText) ? Number(prefixText) : Number.NaN;
      if (version === 0 || !(prefix >= 0 && prefix <= width)) {
        ctx.addIssue({ code: "custom", message: `${entry} is not an IP address or a CIDR network (10.0.0.0/8, ::1)` });
        return z.NEVER;
      }
      proxies.push({ address, family: version === 4 ? "ipv4" : "ipv6", prefix });
    }
    return proxies;
  });

const Environment = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  /** Set → full mode on PostgreSQL; unset → embedded mode on PGlite under DATA_DIR. */
  DATABASE_URL: optionalText,
  DATA_DIR: z.string().default(".data"),
  /** Opening a PostgreSQL connection (TCP, TLS, authentication) gives up after this. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).default(DEFAULT_STORAGE_TIMEOUTS.connectMs),
  /** A statement or transaction waits at most this long for a pooled connection (or for PGlite). */
  DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(100).default(DEFAULT_STORAGE_TIMEOUTS.acquireMs),
  /** PostgreSQL's statement_timeout of every session; the client gives up two seconds later. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(100).default(DEFAULT_STORAGE_TIMEOUTS.statementMs),
  EMBEDDING_PROVIDER: z.enum(["local", "openai"]).default("local"),
  EMBEDDING_MODEL_DIR: z.string().default(".cache/models/e5-small-v2-int8"),
  EMBEDDING_POOL_SIZE: z.coerce.number().int().min(1).optional(),
  EMBEDDING_BASE_URL: optionalText,
  EMBEDDING_API_KEY: optionalText,
  EMBEDDING_MODEL: optionalText,
  /** A BERT cross-encoder (model.onnx, tokenizer.json) for rerank_user_profiles; without one that endpoint answers 503. */
  RERANK_MODEL_DIR: z.string().default(".cache/models/cross-encoder"),
  /** Set → long-running work runs as Temporal workflows; unset → the in-process reconciler runs it. */
  TEMPORAL_ADDRESS: optionalText,
  TEMPORAL_NAMESPACE: z.string().default("default"),
  TEMPORAL_TASK_QUEUE: z.string().default("agent-learning"),
  /** The Temporal UI of that cluster (http://127.0.0.1:8233 for the dev server): the console links its durable work there. */
  TEMPORAL_UI_URL: optionalText,
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Unset: no LLM provider; publishing works, learning reports what to configure. */
  LLM_PROVIDER: z.enum(["openai", "anthropic", "openai-compatible"]).optional(),
  LLM_MODEL: optionalText,
  LLM_BASE_URL: optionalText,
  LLM_API_KEY: optionalText,
  /** LLM calls the provider takes at once: how many users' windows learn at the same time (per process). */
  /** The model's context window in tokens, for a model the service does not know (an OpenAI-compatible server's). */
  LLM_CONTEXT_WINDOW_TOKENS: z.coerce.number().int().min(1_000).optional(),
  LLM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(DEFAULT_LEARNING_CONCURRENCY),
  /** How long a session must be quiet before its short window is learned from and its evaluation graded (the contract's six hours by default). */
  SESSION_INACTIVITY_SECONDS: z.coerce.number().int().min(1).optional(),
  /** How long a session that used a playbook must be quiet before its outcome is inferred (the contract's about ten minutes by default). */
  OUTCOME_INFERENCE_QUIET_SECONDS: z.coerce.number().int().min(1).optional(),
  /** Operator switch: false lifts the five-second deadline of POST /api/search. */
  SERVICE_SEARCH_DEADLINE_ENABLED: z.enum(["true", "false"]).default("true"),
  /**
   * Operator switch: true sends each REST answer's stage timings as a Server-Timing header. Off by
   * default: in a hosted deployment it would tell any caller how the process spends its time and
   * whether a query's embedding was already cached, that is whether someone searched that text lately.
   */
  SERVICE_SERVER_TIMING: z.enum(["true", "false"]).default("false"),
  /**
   * Bun's own: set (to anything), Bun's collection timer is off in the API server's service thread
   * (apps/server/src/main.ts says why). Read here only so that a server started without it says so.
   */
  BUN_GC_TIMER_DISABLE: z.string().optional(),
  /** Searches one process runs at once; a search that could not start in time to meet its deadline answers 503 overloaded with Retry-After. */
  SERVICE_SEARCH_CONCURRENCY: z.coerce.number().int().min(1).max(1024).default(DEFAULT_SEARCH_CONCURRENCY),
  /** The server backstop: a request still running after this many milliseconds answers 504 backstop_timeout. */
  SERVICE_BACKSTOP_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** Web origins whose pages may call the API (comma-separated); none by default. */
  SERVICE_ALLOWED_ORIGINS: z.string().default(""),
  /** Host names the service answers to (comma-separated; "*" for any); unset: loopback names and HOST. */
  SERVICE_ALLOWED_HOSTS: optionalText,
  /** The largest request body accepted; a larger one answers 413. */
  SERVICE_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /** GET /health's storage probe answers 503 (reason timeout) past this. */
  SERVICE_HEALTH_TIMEOUT_MS: z.coerce.number().int().min(100).default(2_000),
  /**
   * Embedded: GET /health answers 503 (reason disk_full) when the data directory's filesystem has
   * less free than this. PGlite's probe rewrites a row in space it already holds, so it cannot tell;
   * a checkpoint's new WAL segment alone needs 16 MB.
   */
  SERVICE_HEALTH_MIN_FREE_DISK_MB: z.coerce.number().int().min(0).default(64),
  /** Publishes one process has under way at once (sharing a few transactions); more wait for a slot (see SERVICE_PUBLISH_ADMISSION_TIMEOUT_MS). */
  SERVICE_PUBLISH_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(DEFAULT_PUBLISH_ADMISSION.concurrency),
  /** A publish is answered within this: 503 capacity_deadline_exceeded if it got no slot, 504 admission_timeout if it did not commit. */
  SERVICE_PUBLISH_ADMISSION_TIMEOUT_MS: z.coerce.number().int().min(100).default(DEFAULT_PUBLISH_ADMISSION.timeoutMs),
  /** Set → the vector arm of ranked searches asks this Qdrant server, kept in sync from PostgreSQL; unset → pgvector. */
  QDRANT_URL: optionalText,
  QDRANT_API_KEY: optionalText,
  /** Starts the names of this deployment's Qdrant collections (`als_` unset): one per deployment sharing a Qdrant server. */
  QDRANT_COLLECTION_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, "letters, digits, _ and - only, at most 64")
    .optional(),
  /**
   * Without Qdrant: "in-process" keeps the vector arm of project-wide searches in a graph inside each
   * API process (embedded: saved under DATA_DIR/vector-index), "pgvector" leaves it to the database.
   * Unset: in-process embedded (where PGlite's one thread walked pgvector's graph), pgvector in full
   * mode (where PostgreSQL walks it on other cores, about as fast; bench/README.md, unified-search).
   */
  VECTOR_INDEX: z.enum(["in-process", "pgvector"]).optional(),
  /** `local` (embedded default): a request without a credential is the local organisation; `required` (hosted): 401 without one. */
  AUTH_MODE: z.enum(["local", "required"]).default("local"),
  /** Per-credential rate limits, `<per second>/<burst>`, by route class; unset: DEFAULT_RATE_LIMITS of @als/identity. */
  RATE_LIMIT_SEARCH: RateLimitText.optional(),
  RATE_LIMIT_PUBLISH: RateLimitText.optional(),
  RATE_LIMIT_WRITE: RateLimitText.optional(),
  RATE_LIMIT_READ: RateLimitText.optional(),
  /** Per client address, shared by every API process: the public account endpoints and every password check. */
  RATE_LIMIT_SIGN_IN: RateLimitText.optional(),
  /**
   * The balancers and proxies in front of the API: only from these is X-Forwarded-For (or Forwarded)
   * read to find the client's address. Unset: none, the connecting address is the client's.
   */
  TRUSTED_PROXIES: TrustedProxiesText,
  /** Where the service is reached from outside: the links of verification and invitation mails. Unset: http://HOST:PORT. */
  SERVICE_PUBLIC_URL: optionalText,
  /** `smtp://user:password@host:port` (or smtps://); unset: mails are written to the log (local mode). */
  SMTP_URL: optionalText,
  MAIL_FROM: z.string().default("Agent learning service <no-reply@localhost>"),
  /** OpenID Connect sign-in; all four set, or none. */
  OIDC_ISSUER: optionalText,
  OIDC_CLIENT_ID: optionalText,
  OIDC_CLIENT_SECRET: optionalText,
  OIDC_REDIRECT_URI: optionalText,
  /** Signs exposure receipts; unset, the database holds one made on first use, shared by every process. */
  EXPOSURE_RECEIPT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * Seals data-source credentials at rest (AES-256-GCM under its SHA-256); unset, the database holds
   * one made on first use, shared by every process.
   */
  DATA_SOURCE_CREDENTIAL_KEY: z.string().min(32, "must be at least 32 characters").optional(),
  /**
   * Tests only: JSON object of `provider:region` → base URL replacing that region's public host
   * (a deterministic provider server on 127.0.0.1). Unset in service: connections reach only the
   * providers' public hosts.
   */
  TRACE_PROVIDER_BASE_URLS: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined || text.trim() === "") return {};
      try {
        return z.record(z.string(), z.url()).parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: "custom", message: "must be a JSON object of provider:region to URL" });
        return z.NEVER;
      }
    }),
  /**
   * The bearer token GET /metrics asks for. With AUTH_MODE=required (hosted) and no token, /metrics
   * is off (404): it tells how the service is loaded. With AUTH_MODE=local it is open unless a token is set.
   */
  METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** Set (with OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, which wins) → spans are exported over OTLP/HTTP to <this>/v1/traces; unset → no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalText.pipe(z.url().optional()),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalText.pipe(z.url().optional()),
  /** `key=value,key2=value2` sent with each export (a collector's credentials). */
  OTEL_EXPORTER_OTLP_HEADERS: optionalText,
  OTEL_SERVICE_NAME: optionalText,
  OTEL_TRACES_SAMPLER: z.enum(SAMPLER_NAMES).default("parentbased_always_on"),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /** The SDK's standard off switch: true → no tracing whatever the endpoint. */
  OTEL_SDK_DISABLED: z.enum(["true", "false"]).default("false"),
  /** The worker serves GET /metrics on this port (its activities and Temporal's SDK metrics); unset: no listener. */
  WORKER_METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /**
   * Crash tests only: comma-separated points of durable work (see crashAt) where this process kills
   * itself with SIGKILL, to prove that what it accepted completes after a restart. Unset in service.
   */
  CRASH_POINTS: z.string().default(""),
});

/** A comma-separated setting as its non-empty entries, lowercased. */
const listOf = (text: string) =>
  text
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);

/** The contract's deadline of POST /api/search. */
export const SEARCH_DEADLINE_MS = 5000;

/** The database column is vector(384): every embedder must produce that many dimensions. */
export const EMBEDDING_DIMENSIONS = 384;

export type Settings = ReturnType<typeof loadSettings>;

/** A Qdrant server, or graphs inside the process (embedded: saved under `directory`); absent: pgvector. */
export type VectorIndexSettings = ({ kind: "qdrant" } & QdrantSettings) | { kind: "in-process"; directory?: string };

/**
 * Parses the process environment once, at start-up; nothing else reads process.env.
 * Throws a message naming each bad variable.
 */
export function loadSettings(env: Record<string, string | undefined>) {
  const parsed = Environment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
    throw new Error(`invalid configuration: ${problems}`);
  }
  const e = parsed.data;
  if (e.EMBEDDING_PROVIDER === "openai" && (!e.EMBEDDING_BASE_URL || !e.EMBEDDING_MODEL)) {
    throw new Error("invalid configuration: EMBEDDING_PROVIDER=openai needs EMBEDDING_BASE_URL and EMBEDDING_MODEL");
  }
  return {
    llm: llmSettings(e),
    host: e.HOST,
    port: e.PORT,
    storage: e.DATABASE_URL
      ? ({ kind: "postgres", url: e.DATABASE_URL, timeouts: storageTimeouts(e) } as const)
      : ({ kind: "pglite", dataDir: `${e.DATA_DIR}/pglite`, timeouts: storageTimeouts(e) } as const),
    embedding:
      e.EMBEDDING_PROVIDER === "openai"
        ? ({
            kind: "openai",
            baseUrl: e.EMBEDDING_BASE_URL!,
            model: e.EMBEDDING_MODEL!,
            dimensions: EMBEDDING_DIMENSIONS,
            ...(e.EMBEDDING_API_KEY && { apiKey: e.EMBEDDING_API_KEY }),
          } as const)
        : ({ kind: "local", modelDir: e.EMBEDDING_MODEL_DIR, ...(e.EMBEDDING_POOL_SIZE && { poolSize: e.EMBEDDING_POOL_SIZE }) } as const),
    rerank: { modelDir: e.RERANK_MODEL_DIR },
    temporal: e.TEMPORAL_ADDRESS
      ? {
          address: e.TEMPORAL_ADDRESS,
          namespace: e.TEMPORAL_NAMESPACE,
          taskQueue: e.TEMPORAL_TASK_QUEUE,
          ...(e.TEMPORAL_UI_URL && { uiUrl: e.TEMPORAL_UI_URL.replace(/\/+$/, "") }),
        }
      : undefined,
    vectorIndex: vectorIndexSettings(e),
    logLevel: e.LOG_LEVEL,
    backstopMs: e.SERVICE_BACKSTOP_TIMEOUT_MS,
    maxBodyBytes: e.SERVICE_MAX_BODY_BYTES,
    browser: {
      allowedOrigins: listOf(e.SERVICE_ALLOWED_ORIGINS),
      allowedHosts: e.SERVICE_ALLOWED_HOSTS === "*" ? ("any" as const) : listOf(e.SERVICE_ALLOWED_HOSTS ?? `localhost,127.0.0.1,[::1],${e.HOST}`),
    },
    healthTimeoutMs: e.SERVICE_HEALTH_TIMEOUT_MS,
    healthDisk: e.DATABASE_URL ? undefined : { directory: e.DATA_DIR, minFreeBytes: e.SERVICE_HEALTH_MIN_FREE_DISK_MB * 1024 * 1024 },
    serverTiming: e.SERVICE_SERVER_TIMING === "true",
    collectionTimerOff: e.BUN_GC_TIMER_DISABLE !== undefined,
    identity: identitySettings(e),
    publishAdmission: { concurrency: e.SERVICE_PUBLISH_CONCURRENCY, timeoutMs: e.SERVICE_PUBLISH_ADMISSION_TIMEOUT_MS } satisfies PublishAdmissionSettings,
    learning: {
      concurrency: e.LLM_CONCURRENCY,
      ...(e.SESSION_INACTIVITY_SECONDS !== undefined && { sessionInactivitySeconds: e.SESSION_INACTIVITY_SECONDS }),
      ...(e.OUTCOME_INFERENCE_QUIET_SECONDS !== undefined && { outcomeQuietSeconds: e.OUTCOME_INFERENCE_QUIET_SECONDS }),
    } satisfies LearningSettings,
    crashPoints: new Set(listOf(e.CRASH_POINTS)) as ReadonlySet<string>,
    metrics: metricsAccess(e),
    workerMetricsPort: e.WORKER_METRICS_PORT,
    tracing: tracingSettings(e),
    dataSources: {
      providerBaseUrls: e.TRACE_PROVIDER_BASE_URLS,
      ...(e.DATA_SOURCE_CREDENTIAL_KEY && { credentialKey: e.DATA_SOURCE_CREDENTIAL_KEY }),
    } satisfies DataSourceSettings,
    search: {
      deadlineMs: e.SERVICE_SEARCH_DEADLINE_ENABLED === "true" ? SEARCH_DEADLINE_MS : null,
      concurrency: e.SERVICE_SEARCH_CONCURRENCY,
      ...(e.EXPOSURE_RECEIPT_SECRET && { exposureReceiptSecret: e.EXPOSURE_RECEIPT_SECRET }),
    } satisfies SearchSettings,
  };
}

/** Who may read /metrics: anyone (`open`), the holder of a bearer token, or nobody (`off`). */
export type MetricsAccess = { kind: "open" } | { kind: "token"; token: string } | { kind: "off" };

function metricsAccess(e: z.infer<typeof Environment>): MetricsAccess {
  if (e.METRICS_TOKEN) return { kind: "token", token: e.METRICS_TOKEN };
  return e.AUTH_MODE === "required" ? { kind: "off" } : { kind: "open" };
}

/** Tracing as the OTEL_* settings say: off (undefined) unless an OTLP endpoint is set and the SDK is not disabled. */
function tracingSettings(e: z.infer<typeof Environment>): TracingSettings | undefined {
  if (e.OTEL_SDK_DISABLED === "true") return undefined;
  const url = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`);
  if (!url) return undefined;
  const headers: Record<string, string> = {};
  for (const pair of (e.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",").filter((each) => each.trim())) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new Error("invalid configuration: OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs, comma-separated");
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return {
    url,
    headers,
    sampler: e.OTEL_TRACES_SAMPLER,
    samplerRatio: e.OTEL_TRACES_SAMPLER_ARG,
    ...(e.OTEL_SERVICE_NAME && { serviceName: e.OTEL_SERVICE_NAME }),
  };
}

function vectorIndexSettings(e: z.infer<typeof Environment>): VectorIndexSettings | undefined {
  if (e.QDRANT_URL)
    return {
      kind: "qdrant",
      url: e.QDRANT_URL,
      ...(e.QDRANT_API_KEY && { apiKey: e.QDRANT_API_KEY }),
      ...(e.QDRANT_COLLECTION_PREFIX && { collectionPrefix: e.QDRANT_COLLECTION_PREFIX }),
    };
  const choice = e.VECTOR_INDEX ?? (e.DATABASE_URL ? "pgvector" : "in-process");
  if (choice === "pgvector") return undefined;
  return { kind: "in-process", ...(!e.DATABASE_URL && { directory: `${e.DATA_DIR}/vector-index` }) };
}

function storageTimeouts(e: z.infer<typeof Environment>): StorageTimeouts {
  return { connectMs: e.DATABASE_CONNECT_TIMEOUT_MS, acquireMs: e.DATABASE_ACQUIRE_TIMEOUT_MS, statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS };
}

function identitySettings(e: z.infer<typeof Environment>) {
  const oidc = [e.OIDC_ISSUER, e.OIDC_CLIENT_ID, e.OIDC_CLIENT_SECRET, e.OIDC_REDIRECT_URI];
  if (oidc.some(Boolean) && !oidc.every(Boolean)) {
    throw new Error("invalid configuration: OpenID Connect needs OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET and OIDC_REDIRECT_URI together");
  }
  return {
    authMode: e.AUTH_MODE,
    trustedProxies: e.TRUSTED_PROXIES,
    // Only the classes set here; the others keep their defaults (DEFAULT_RATE_LIMITS of @als/identity).
    rateLimits: Object.fromEntries(
      Object.entries({
        search: e.RATE_LIMIT_SEARCH,
        publish: e.RATE_LIMIT_PUBLISH,
        write: e.RATE_LIMIT_WRITE,
        read: e.RATE_LIMIT_READ,
        sign_in: e.RATE_LIMIT_SIGN_IN,
      }).filter(([, limit]) => limit !== undefined),
    ) as Partial<Record<RateClass, { perSecond: number; burst: number }>>,
    publicUrl: (e.SERVICE_PUBLIC_URL ?? `http://${e.HOST}:${e.PORT}`).replace(/\/+$/, ""),
    mail: { from: e.MAIL_FROM, ...(e.SMTP_URL && { smtpUrl: e.SMTP_URL }) },
    oidc: e.OIDC_ISSUER
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID!, clientSecret: e.OIDC_CLIENT_SECRET!, redirectUri: e.OIDC_REDIRECT_URI! }
      : undefined,
  };
}

const DEFAULT_LLM_MODELS = { openai: "gpt-4o-mini", anthropic: "claude-3-5-haiku-latest" } as const;

function llmSettings(e: z.infer<typeof Environment>): LlmSettings | undefined {
  const kind = e.LLM_PROVIDER;
  if (kind === undefined) return undefined;
  if (kind !== "openai-compatible" && !e.LLM_API_KEY) throw new Error(`invalid configuration: LLM_PROVIDER=${kind} needs LLM_API_KEY`);
  if (kind === "openai-compatible" && (!e.LLM_BASE_URL || !e.LLM_MODEL)) {
    throw new Error("invalid configuration: LLM_PROVIDER=openai-compatible needs LLM_BASE_URL and LLM_MODEL");
  }
  const model = e.LLM_MODEL ?? DEFAULT_LLM_MODELS[kind as keyof typeof DEFAULT_LLM_MODELS];
  return {
    kind,
    model,
    ...(e.LLM_BASE_URL && { baseUrl: e.LLM_BASE_URL }),
    ...(e.LLM_API_KEY && { apiKey: e.LLM_API_KEY }),
    ...(e.LLM_CONTEXT_WINDOW_TOKENS && { contextWindowTokens: e.LLM_CONTEXT_WINDOW_TOKENS }),
  };
}
