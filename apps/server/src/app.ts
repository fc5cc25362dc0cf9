import { AppError } from "@als/contract";
import type { CoreDeps } from "@als/core";
import { LOCAL_SCOPE } from "@als/db";
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { Elysia } from "elysia";
import type { RequestContext } from "./context.ts";
import { withBackstop } from "./http/backstop.ts";
import { errorResponse, toAppError } from "./http/error-response.ts";
import { readJsonBody, readQuery, withQueryFields } from "./http/read-input.ts";
import { parseInput } from "./http/validation.ts";
import type { Logger } from "./logger.ts";
import { buildOpenApi, DOCS_PAGE } from "./openapi.ts";
import type { Operation } from "./operation.ts";
import { operations } from "./routes/index.ts";
import { buildTrpcRouter } from "./trpc.ts";

export interface AppOptions {
  deps: CoreDeps;
  log: Logger;
  mode: "embedded" | "full";
  /** The server backstop: no request runs longer than this unless its operation says otherwise. */
  backstopMs?: number;
}

/** The backstop of an app built without settings (tests, benchmarks), as SERVICE_BACKSTOP_TIMEOUT_MS's default. */
const DEFAULT_BACKSTOP_MS = 60_000;

const CORRELATION_HEADER = "x-correlation-id";

/** The HTTP application: REST under /api, tRPC under /trpc, OpenAPI at /openapi.json, docs at /docs. */
export function buildApp({ deps, log, mode, backstopMs = DEFAULT_BACKSTOP_MS }: AppOptions) {
  const contextFor = (request: Request): RequestContext => ({
    deps,
    // Every request is served as the local organisation's `default` project until API keys arrive.
    scope: LOCAL_SCOPE,
    correlationId: request.headers.get(CORRELATION_HEADER) ?? crypto.randomUUID(),
    log,
  });

  const serve = async (operation: Operation, request: Request, pathParams: Record<string, string>): Promise<Response> => {
    const ctx = contextFor(request);
    try {
      const input =
        operation.method === "GET"
          ? parseInput(operation.input, { ...readQuery(new URL(request.url)), ...pathParams }, "query")
          : parseInput(operation.input, withQueryFields(operation, request, await readJsonBody(request)), "body");
      const output = await withBackstop(operation.handle(ctx, input), operation.backstopMs ?? backstopMs, ctx.correlationId);
      return Response.json(output, { status: operation.successStatus ?? 200 });
    } catch (error) {
      return errorResponse(toAppError(error, ctx.correlationId, log));
    }
  };

  const trpcRouter = buildTrpcRouter(operations, log, backstopMs);
  const openApi = buildOpenApi(operations, { title: "Agent learning service", version: "0.1.0" });

  const app = new Elysia()
    .get("/health", async () => {
      try {
        await deps.db.query("SELECT 1");
      } catch {
        return errorResponse(new AppError("storage_unavailable", "storage is unavailable"));
      }
      return { status: "ok", mode, storage: deps.db.kind, embedding_model: deps.embedder.modelId };
    })
    .get("/openapi.json", () => openApi)
    .get("/docs", () => new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }))
    .all("/trpc/*", ({ request }) =>
      fetchRequestHandler({ endpoint: "/trpc", req: request, router: trpcRouter, createContext: () => contextFor(request) }),
    )
    .onError(({ code, request }) => {
      if (code === "NOT_FOUND") {
        const { pathname } = new URL(request.url);
        return errorResponse(new AppError("not_found", `no endpoint ${request.method} ${pathname}`));
      }
    });
  for (const operation of operations) {
    app.route(operation.method, operation.path, ({ request, params }) => serve(operation, request, params as Record<string, string>), { parse: "none" });
  }
  return app;
}

export type App = ReturnType<typeof buildApp>;
