import { AppError, ERROR_TABLE, errorBody } from "@als/contract";
import { initTRPC, TRPCError, type AnyTRPCProcedure } from "@trpc/server";
import type { RequestContext } from "./context.ts";
import { withBackstop } from "./http/backstop.ts";
import { toAppError } from "./http/error-response.ts";
import { parseInput } from "./http/validation.ts";
import type { Logger } from "./logger.ts";
import type { Operation } from "./operation.ts";

/**
 * The tRPC router for internal tools: the same operations as the REST routes, named
 * `resource.action`, with the same validation and the same error table.
 */
export function buildTrpcRouter(operations: Operation[], log: Logger, backstopMs: number) {
  const t = initTRPC.context<RequestContext>().create({
    errorFormatter: ({ shape, error }) => ({
      ...shape,
      data: { ...shape.data, stack: undefined, ...(error.cause instanceof AppError && { appError: errorBody(error.cause) }) },
    }),
  });
  const withAppErrors = t.middleware(async ({ ctx, next }) => {
    const result = await next();
    if (result.ok) return result;
    const appError = toAppError(result.error.cause ?? result.error, ctx.correlationId, log);
    throw new TRPCError({ code: ERROR_TABLE[appError.code].trpc, message: appError.message, cause: appError });
  });
  const base = t.procedure.use(withAppErrors);

  const tree: Record<string, Record<string, AnyTRPCProcedure>> = {};
  for (const operation of operations) {
    const [resource, action] = operation.procedure.split(".") as [string, string];
    const procedure = base
      .input((raw: unknown) => parseInput(operation.input, raw, operation.method === "GET" ? "query" : "body"))
      [operation.method === "GET" ? "query" : "mutation"](({ ctx, input }) => withBackstop(operation.handle(ctx, input), operation.backstopMs ?? backstopMs, ctx.correlationId));
    (tree[resource] ??= {})[action] = procedure;
  }
  return t.router(tree);
}
