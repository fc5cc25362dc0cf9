import { AppError, type Endpoint, endpoints, errorCodesOf, rateClassOf, toAppError } from "@als/contract";
import { type CoreDeps, type MetricsAccess, RequestTimings, type TrustedProxy } from "@als/core";
import { checkFreeSpace, checkStorage } from "@als/db";
import {
  type AccountServices,
  type AuthMode,
  authorizeRequest,
  DEFAULT_RATE_LIMITS,
  KeyUses,
  localAccountServices,
  principalIdOf,
  RateLimiter,
  type RateLimits,
  takeSignInAttempt,
} from "@als/identity";
import { activeTraceId, inRequestSpan, inSpan } from "@als/telemetry";
import type { Attributes } from "@opentelemetry/api";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { Elysia } from "elysia";
import type { IncomingRequest, RequestContext } from "./context.ts";
import { withBackstop } from "./http/backstop.ts";
import { type BrowserPolicy, browserGuard, LOCAL_BROWSER_POLICY } from "./http/browser-guard.ts";
import { type ClientAddressOf, clientAddressResolver, fromThisMachine } from "./http/client-address.ts";
import { CONSOLE_DIST, serveConsoleFile } from "./http/console-files.ts";
import { errorCodeOf, errorResponse, translateError } from "./http/error-response.ts";
import { IDEMPOTENCY_KEY_HEADER, idempotencyKeyFrom } from "./http/idempotency-key-header.ts";
import { type McpRouteDeps, serveMcp } from "./http/mcp-endpoint.ts";
import { allowedMethodsIndex } from "./http/method-not-allowed.ts";
import { serveMetrics } from "./http/metrics-endpoint.ts";
import { readJsonBody, readPathParams, readQuery, withQueryFields } from "./http/read-input.ts";
import { toResponseBody } from "./http/response-body.ts";
import { serverTimingHeader, timingFields } from "./http/server-timing.ts";
import { parseInput } from "./http/validation.ts";
import type { Route } from "./implement.ts";
import type { Logger } from "./logger.ts";
import { type ApiMetrics, createApiMetrics } from "./metrics/api-metrics.ts";
import { buildOpenApi, DOCS_PAGE } from "./openapi.ts";
import { routeList } from "./routes/index.ts";
import { buildTrpcRouter } from "./trpc.ts";

export interface AppOptions {
  deps: CoreDeps;
  log: Logger;
  mode: "embedded" | "full";
  /** The server backstop: no request runs longer than this unless its endpoint says otherwise. */
  backstopMs?: number;
  /** The largest request body accepted (413 beyond it). */
  maxBodyBytes?: number;
  /** Which web origins and host names are served (default: loopback names, no other web page). */
  browser?: BrowserPolicy;
  /** How long /health waits for its storage write check. */
  healthTimeoutMs?: number;
  /** Embedded: the data directory whose free space /health checks, and the least it must have. */
  healthDisk?: { directory: string; minFreeBytes: number };
  /** Fail a response carrying a field its declaration does not name (tests), instead of stripping it. */
  strictResponses?: boolean;
  /** `local` (default): no credential is the local organisation; `required`: 401 without one. */
  authMode?: AuthMode;
  /** Per-credential token buckets by route class; a class not given keeps DEFAULT_RATE_LIMITS. */
  rateLimits?: Partial<RateLimits>;
  /** The proxies whose X-Forwarded-For / Forwarded headers name the client's address (default: none). */
  trustedProxies?: readonly TrustedProxy[];
  /** The mailer, OpenID Connect client and public URL of the account endpoints (default: mails logged, no OIDC, http://localhost:8081). */
  accounts?: AccountServices;
  /** Send each REST answer's stage timings as a Server-Timing header (SERVICE_SERVER_TIMING; default off). */
  serverTiming?: boolean;
  /** The built operator console served under /console (default: apps/console/dist, made by scripts/build-console). */
  consoleDir?: string;
  /** What GET /metrics exposes (default: the metrics of `deps`, without LLM calls, which the composition root meters). */
  metrics?: ApiMetrics;
  /** Who may read GET /metrics (METRICS_TOKEN and AUTH_MODE; default open). */
  metricsAccess?: MetricsAccess;
}

/** The defaults of an app built without settings (tests, benchmarks), as the settings' own defaults. */
const DEFAULT_BACKSTOP_MS = 60_000;
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_HEALTH_TIMEOUT_MS = 2_000;

const CORRELATION_HEADER = "x-correlation-id";

/** Elysia's handle on the listening server, if any: it knows the peer's address. */
type Listener = { requestIP(request: Request): { address: string } | null } | null | undefined;

const incomingOf = (request: Request, server: Listener, clientAddressOf: ClientAddressOf): IncomingRequest => {
  const peer = server?.requestIP(request)?.address ?? null;
  return {
    // Traced, the request's trace id is its correlation id: its log lines and its trace are found by one id.
    correlationId: request.headers.get(CORRELATION_HEADER) ?? activeTraceId() ?? crypto.randomUUID(),
    authorization: request.headers.get("authorization"),
    project: request.headers.get("x-service-project"),
    idempotencyKey: request.headers.get(IDEMPOTENCY_KEY_HEADER),
    clientAddress: clientAddressOf(request, peer),
    fromThisMachine: fromThisMachine(request, peer),
  };
};

/**
 * `answer` in the request's server span when tracing is on: named by the declared procedure or a
 * fixed route's name, with the method, the route's template and the answer's status and error code.
 */
const traced = (name: string, request: Request, attributes: Attributes, answer: () => Promise<Response>): Promise<Response> =>
  inRequestSpan(name, request.headers, { "http.request.method": request.method, ...attributes }, answer, (response) => {
    const code = errorCodeOf(response);
    return { "http.response.status_code": response.status, ...(code && { "error.type": code }) };
  });

/**
 * The HTTP application: REST under /api, tRPC under /trpc, MCP (Streamable HTTP) at /mcp, OpenAPI at
 * /openapi.json, docs at /docs, the operator console at /console, Prometheus metrics at /metrics.
 */
export function buildApp({
  deps,
  log,
  mode,
  backstopMs = DEFAULT_BACKSTOP_MS,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
  healthTimeoutMs = DEFAULT_HEALTH_TIMEOUT_MS,
  healthDisk,
  browser = LOCAL_BROWSER_POLICY,
  strictResponses = false,
  authMode = "local",
  rateLimits = {},
  trustedProxies = [],
  accounts = localAccountServices(log),
  serverTiming = false,
  consoleDir = CONSOLE_DIST,
  metrics = createApiMetrics(deps),
  metricsAccess = { kind: "open" },
}: AppOptions) {
  const limits = { ...DEFAULT_RATE_LIMITS, ...rateLimits };
  const rateLimiter = new RateLimiter(limits);
  const keyUses = new KeyUses();
  const clientAddressOf = clientAddressResolver(trustedProxies);

  /**
   * The one resolver (see authorizeRequest), then the rate limit: before any handler runs. A
   * credential has its own buckets in this process; sign-in attempts (the public endpoints, and a
   * member's password checks) are limited per client address in the database instead, shared by
   * every API process, so passwords cannot be guessed at the speed of the network or of N processes.
   */
  const authorize = async (
    endpoint: Endpoint,
    incoming: IncomingRequest,
    pathParams: Record<string, string>,
    timings: RequestTimings,
  ): Promise<RequestContext> => {
    const { principal, scope } = await authorizeRequest({ db: deps.db, now: deps.now, keyUses }, authMode, endpoint, incoming, pathParams);
    const rateClass = rateClassOf(endpoint);
    if (rateClass === "sign_in") {
      if (incoming.clientAddress !== null) await takeSignInAttempt(deps, incoming.clientAddress, limits.sign_in);
    } else if (principal.kind === "api_key" || principal.kind === "session") {
      rateLimiter.take(principalIdOf(principal), rateClass, principal.kind === "api_key" ? "this API key" : "this session");
    }
    return {
      deps,
      principal,
      scope,
      correlationId: incoming.correlationId,
      clientAddress: incoming.clientAddress,
      fromThisMachine: incoming.fromThisMachine,
      authMode,
      accounts,
      timings,
    };
  };

  /** Runs a route on parsed input within its time budget. */
  const handled = (route: Route, ctx: RequestContext, input: unknown, incoming: IncomingRequest) => {
    const idempotencyKey = idempotencyKeyFrom(route.endpoint, incoming.idempotencyKey, input);
    return withBackstop(route.handle(idempotencyKey ? { ...ctx, idempotencyKey } : ctx, input), route.endpoint.timeoutMs ?? backstopMs, ctx.correlationId);
  };

  /** Runs a route on parsed input within its time budget and returns the declared body. */
  const run = async (route: Route, ctx: RequestContext, input: unknown, incoming: IncomingRequest) =>
    toResponseBody(route.endpoint, await handled(route, ctx, input, incoming), strictResponses);

  /**
   * The answer as sent: with the request's stages in Server-Timing when that is on, and the request
   * logged at debug level with them. Timings are taken whether or not anyone reads them: a dozen
   * clock readings per request cost far less than deciding per request whether to take them.
   */
  const finished = (
    procedure: string,
    response: Response,
    request: Request,
    incoming: IncomingRequest,
    timings: RequestTimings,
    startedAt: number,
  ): Response => {
    timings.since("total", startedAt);
    const stages = timings.list();
    metrics.requests.observe({
      procedure,
      status: response.status,
      code: errorCodeOf(response),
      seconds: (performance.now() - startedAt) / 1000,
      stages,
    });
    if (serverTiming) response.headers.set("server-timing", serverTimingHeader(stages));
    log.debug("request", {
      correlationId: incoming.correlationId,
      method: request.method,
      path: new URL(request.url).pathname,
      status: response.status,
      ...timingFields(stages),
    });
    return response;
  };

  /** In strict mode (tests) an error the endpoint does not declare fails loudly, so OpenAPI cannot fall behind. */
  const declared = (endpoint: Endpoint, appError: AppError): AppError =>
    !strictResponses || errorCodesOf(endpoint).has(appError.code)
      ? appError
      : new AppError("internal_error", `${endpoint.procedure} answered ${appError.code}, which its declaration does not list: ${appError.message}`);

  /**
   * A streamed body: errors before the first chunk (the credential, the input, the opening reads)
   * answer as usual; a storage failure after it can only cut the body short, which a JSON parser
   * reports as truncated, and is logged.
   */
  const streamed = async (opening: Promise<AsyncIterable<string>>, endpoint: Endpoint, correlationId: string): Promise<Response> => {
    const chunks = (await withBackstop(opening, endpoint.timeoutMs ?? backstopMs, correlationId))[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          translateError(error, correlationId, log);
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return?.(undefined);
      },
    });
    return new Response(body, { status: endpoint.successStatus ?? 200, headers: { "content-type": "application/json" } });
  };

  /** A REST request's answer, its stages recorded in `timings` (`serialize` here, the rest by the handler). */
  const answer = async (
    route: Route,
    request: Request,
    params: Record<string, string | null> | undefined,
    incoming: IncomingRequest,
    timings: RequestTimings,
  ): Promise<Response> => {
    const { endpoint } = route;
    try {
      // The path is read to authorize (a project id is looked up), so it is checked first.
      const pathParams = readPathParams(params);
      // Credentials before input: a caller without access learns nothing, not even what is invalid.
      const ctx = await authorize(endpoint, incoming, pathParams, timings);
      const url = new URL(request.url);
      const input =
        endpoint.method === "GET"
          ? parseInput(endpoint.input, { ...readQuery(url), ...pathParams }, "query")
          : parseInput(endpoint.input, withPathParams(withQueryFields(endpoint, url, await readJsonBody(request, maxBodyBytes)), pathParams), "body");
      if (route.stream) return await streamed(route.stream(ctx, input), endpoint, ctx.correlationId);
      const output = await handled(route, ctx, input, incoming);
      const serializingSince = performance.now();
      const response = Response.json(toResponseBody(endpoint, output, strictResponses), { status: endpoint.successStatus ?? 200 });
      timings.since("serialize", serializingSince);
      return response;
    } catch (error) {
      return errorResponse(declared(endpoint, translateError(error, incoming.correlationId, log)));
    }
  };

  const serve = (route: Route, request: Request, params: Record<string, string | null> | undefined, server: Listener): Promise<Response> =>
    traced(route.endpoint.procedure, request, { "http.route": route.endpoint.path }, async () => {
      const startedAt = performance.now();
      const incoming = incomingOf(request, server, clientAddressOf);
      const timings = new RequestTimings();
      return finished(route.endpoint.procedure, await answer(route, request, params, incoming, timings), request, incoming, timings, startedAt);
    });

  /** A request outside the declared endpoints, counted under a fixed name (its path may carry anything). */
  const counted = (procedure: string, request: Request, answering: () => Promise<Response>): Promise<Response> =>
    traced(procedure, request, {}, async () => {
      const startedAt = performance.now();
      const response = await answering();
      metrics.requests.observe({
        procedure,
        status: response.status,
        code: errorCodeOf(response),
        seconds: (performance.now() - startedAt) / 1000,
        stages: [],
      });
      return response;
    });

  // tRPC answers carry no Server-Timing: its calls are timed for nobody, but counted under their procedure.
  const trpcRouter = buildTrpcRouter(
    routeList,
    async (route, incoming, input) => {
      const startedAt = performance.now();
      const observe = (status: number, code: string | undefined) =>
        metrics.requests.observe({ procedure: route.endpoint.procedure, status, code, seconds: (performance.now() - startedAt) / 1000, stages: [] });
      try {
        // One tRPC request may batch several calls: each is a span of its own under the request's.
        const output = await inSpan(route.endpoint.procedure, {}, async () =>
          run(route, await authorize(route.endpoint, incoming, {}, new RequestTimings()), input, incoming),
        );
        observe(route.endpoint.successStatus ?? 200, undefined);
        return output;
      } catch (error) {
        const { appError } = toAppError(error, incoming.correlationId);
        observe(appError.status, appError.code);
        throw error;
      }
    },
    log,
  );
  // Made when first asked for: it takes 0.3–1 s of CPU, which an app that is never asked for it
  // (most test apps, most processes) should not pay at start.
  let openApi: ReturnType<typeof buildOpenApi> | undefined;
  const openApiDocument = () => {
    openApi ??= buildOpenApi(
      routeList.map((route) => route.endpoint),
      { title: "Agent learning service", version: "0.1.0" },
    );
    return openApi;
  };
  const allowedMethods = allowedMethodsIndex(routeList.map((route) => route.endpoint));

  const mcpRoute: McpRouteDeps = {
    // Admitted as a caller of whoami: any agent credential of the organisation, rate-limited as a read.
    admit: async (caller) => void (await authorize(endpoints.service.whoami, caller, {}, new RequestTimings())),
    handle: (inner: Request): Promise<Response> => app.handle(inner),
  };

  const app = new Elysia()
    .onRequest(browserGuard(browser))
    .get("/health", ({ request }) =>
      counted("health", request, async () => {
        try {
          // A write, not a read: a full disk or a read-only database must fail the health check too.
          await checkStorage(deps.db, healthTimeoutMs);
          if (healthDisk) await checkFreeSpace(healthDisk.directory, healthDisk.minFreeBytes);
        } catch (error) {
          return errorResponse(translateError(error, request.headers.get(CORRELATION_HEADER) ?? crypto.randomUUID(), log));
        }
        return Response.json({ status: "ok", mode, storage: deps.db.kind, embedding_model: deps.embedder.modelId });
      }),
    )
    .get("/metrics", ({ request }) => serveMetrics(metricsAccess, metrics.registry, request.headers.get("authorization")))
    .get("/openapi.json", openApiDocument)
    .get("/docs", () => new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }))
    .get("/console", ({ request }) => serveConsoleFile(consoleDir, new URL(request.url).pathname))
    .get("/console/*", ({ request }) => serveConsoleFile(consoleDir, new URL(request.url).pathname))
    .all(
      "/trpc/*",
      ({ request, server }) =>
        traced("trpc", request, {}, async () => {
          const incoming = incomingOf(request, server, clientAddressOf);
          let body: unknown;
          try {
            // Read here so tRPC calls get the same limits on size, media type and encoding as REST.
            body = await readJsonBody(request, maxBodyBytes);
          } catch (error) {
            return errorResponse(translateError(error, incoming.correlationId, log));
          }
          const req = new Request(request.url, { method: request.method, headers: request.headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
          return fetchRequestHandler({ endpoint: "/trpc", req, router: trpcRouter, createContext: () => incoming, onError: ({ error }) => void error });
        }),
      { parse: "none" },
    )
    .all(
      "/mcp",
      ({ request, server }) =>
        counted("mcp", request, async () => {
          const incoming = incomingOf(request, server, clientAddressOf);
          try {
            // The body under REST's limits on size, media type and encoding, read before the door so
            // the rate limit counts only requests that could be served.
            const body = request.method === "POST" ? await readJsonBody(request, maxBodyBytes) : undefined;
            return await serveMcp(mcpRoute, request, incoming, body);
          } catch (error) {
            return errorResponse(translateError(error, incoming.correlationId, log));
          }
        }),
      { parse: "none" },
    )
    .onError(({ code, request }) => {
      if (code !== "NOT_FOUND") return;
      const { pathname } = new URL(request.url);
      const allow = allowedMethods(pathname);
      const response = allow
        ? errorResponse(new AppError("method_not_allowed", `${request.method} is not served at ${pathname}; use ${allow}`), { allow })
        : errorResponse(new AppError("not_found", `no endpoint ${request.method} ${pathname}`));
      metrics.requests.observe({ procedure: "unmatched", status: response.status, code: errorCodeOf(response), seconds: 0, stages: [] });
      return response;
    });
  for (const route of routeList) {
    app.route(
      route.endpoint.method,
      route.endpoint.path,
      ({ request, params, server }) => serve(route, request, params as Record<string, string | null> | undefined, server),
      { parse: "none" },
    );
  }
  return app;
}

/** Path parameters (`/operations/:operation_id`) join a body's fields; the path wins. */
function withPathParams(body: unknown, pathParams: Record<string, string>): unknown {
  if (Object.keys(pathParams).length === 0) return body;
  return { ...(typeof body === "object" && body !== null ? body : {}), ...pathParams };
}

export type App = ReturnType<typeof buildApp>;
