import { AppError, ERROR_TABLE, errorBody } from "@als/contract";
import { type AnyTRPCProcedure, initTRPC, TRPCError } from "@trpc/server";
import type { IncomingRequest } from "./context.ts";
import { translateError } from "./http/error-response.ts";
import { parseInput } from "./http/validation.ts";
import type { Route } from "./implement.ts";
import type { Logger } from "./logger.ts";

/**
 * The tRPC router for internal tools: every route as the procedure its endpoint names
 * (`resource.action`; a GET is a query, the rest mutations), with the same input rules, time
 * budget, credential rules, response allow-list and error table as REST (`run` authorizes each call). Its static type is `AppRouter` of @als/client.
 */
export function buildTrpcRouter(routes: Route[], run: (route: Route, incoming: IncomingRequest, input: unknown) => Promise<unknown>, log: Logger) {
  const t = initTRPC.context<IncomingRequest>().create({
    errorFormatter: ({ shape, error }) => ({
      ...shape,
      data: { ...shape.data, stack: undefined, ...(error.cause instanceof AppError && { appError: errorBody(error.cause) }) },
    }),
  });
  const withAppErrors = t.middleware(async ({ ctx, next }) => {
    const result = await next();
    if (result.ok) return result;
    const appError = translateError(result.error.cause ?? result.error, ctx.correlationId, log);
    throw new TRPCError({ code: ERROR_TABLE[appError.code].trpc, message: appError.message, cause: appError });
  });
  const base = t.procedure.use(withAppErrors);

  const tree: Record<string, Record<string, AnyTRPCProcedure>> = {};
  for (const route of routes) {
    const { procedure, method, input } = route.endpoint;
    const [resource, action] = procedure.split(".") as [string, string];
    const withInput = base.input((raw: unknown) => parseInput(input, raw, method === "GET" ? "query" : "body"));
    const handler = ({ ctx, input: parsed }: { ctx: IncomingRequest; input: unknown }) => run(route, ctx, parsed);
    tree[resource] ??= {};
    tree[resource][action] = method === "GET" ? withInput.query(handler) : withInput.mutation(handler);
  }
  return t.router(tree);
}
